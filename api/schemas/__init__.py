"""Request and response schemas, one module per resource (matches, accounts, admin, catalog, the play socket,
errors, audit, tournaments) and what they share (common). Moves are checked against each game's vocabulary by the
domain; the vocabularies are also published as OpenAPI components (games.py, api/app.py), and the documented
body of POST /v1/matches game by game (new_match.py)."""
