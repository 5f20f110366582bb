"""Reading source: parsing, names, scopes, control-flow graphs, what a file's text says before any parse, and positions."""
