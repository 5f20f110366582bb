"""The whole program: the files given, function summaries and their replay, the project analysed together."""
