from ownlint.cli import main

main()
