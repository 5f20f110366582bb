"""The value domain and the path state: abstract values, typestates, the maps a path holds, their joins and widening."""
