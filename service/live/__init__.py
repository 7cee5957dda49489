"""What is live: the logs followed as they grow, one reader per process (hub.py), the match and tournament streams
over them (streams.py) and the accounts' turn feeds (feed.py)."""
