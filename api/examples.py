"""Examples for the OpenAPI document: one Mantis match with one human seat and two bots, as the server
answers it (tests/unit/test_openapi.py checks every example against its schema)."""

SEATS = [{"seat": 0, "name": "ann", "bot": None, "open": False, "account": None, "invited": False,
          "zombie": False, "out": None},
         {"seat": 1, "name": "random bot", "bot": "random", "open": False, "account": None, "invited": False,
          "zombie": False, "out": None},
         {"seat": 2, "name": "greedy bot", "bot": "greedy", "open": False, "account": None, "invited": False,
          "zombie": False, "out": None}]
VIEW = {"edition": "classic",
        "draw_pile": {"count": 93, "top_back": ["yellow", "blue", "purple"]},
        "tanks": [[{"back": ["yellow", "green", "pink"], "front": "pink"},
                   {"back": ["yellow", "blue", "pink"], "front": "blue"},
                   {"back": ["red", "orange", "green"], "front": "red"},
                   {"back": ["orange", "purple", "pink"], "front": "pink"}],
                  [{"back": ["red", "yellow", "blue"], "front": "red"},
                   {"back": ["red", "yellow", "green"], "front": "red"},
                   {"back": ["orange", "blue", "pink"], "front": "orange"},
                   {"back": ["yellow", "blue", "purple"], "front": "purple"}],
                  [{"back": ["yellow", "green", "pink"], "front": "green"},
                   {"back": ["yellow", "purple", "pink"], "front": "purple"},
                   {"back": ["red", "yellow", "pink"], "front": "pink"},
                   {"back": ["red", "yellow", "blue"], "front": "yellow"}]],
        "score_piles": [0, 0, 0],
        "own_score_pile": [],
        "turn": 0,
        "target": 10}
MATCH = {"id": "23b10586d7b4412894a203c53c76cf43", "game": "mantis", "options": {"edition": "classic"},
         "status": "active", "version": 2, "seats": SEATS, "to_act": [0], "result": None, "you": 0,
         "commitment": "a6782f6fa54678cfabeacc2d112dfa1ce0ec675885502bd18afb5d09ff4ed811", "seed_source": "server",
         "rated": False, "rematch_of": None, "rematch": None,
         "view": VIEW}

CREATE_MATCH = {"game": "mantis", "seats": [{"name": "ann"}, {"bot": "random"}, {"bot": "greedy"}]}
CREATED = {**MATCH, "you": None, "view": {**VIEW, "own_score_pile": None},
           "seats": [{**SEATS[0], "token": "qLex2z1x9FEPDVuxxRfyA3Q7wA30I-sj"}, *SEATS[1:]]}
LEGAL_MOVES = {"version": 2, "seat": 0,
               "moves": [{"action": "score"}, {"action": "steal", "target": 1}, {"action": "steal", "target": 2}]}
MOVE = {"move": {"action": "score"}, "expected_version": 2}
MOVED = {"version": 4, "status": "active", "to_act": [1], "events": [
    {"version": 3, "type": "moved", "data": {"seat": 0, "move": {"action": "score"}},
     "time": "2026-11-22T23:49:26.207Z", "prev": "6d28c8409ee9239566e622e09276c6018dfc8c33a946b5a2f549e982d33628f6",
     "hash": "ec3b4fb31df9ae9e8fae6f0ae640596b9f1d94a4b0b08f1fe9e9cf41f466e88b"},
    {"version": 4, "type": "score_tried",
     "data": {"seat": 0, "card": {"back": ["yellow", "blue", "purple"], "front": "blue"}, "moved": 2},
     "time": "2026-11-22T23:49:26.207Z", "prev": "ec3b4fb31df9ae9e8fae6f0ae640596b9f1d94a4b0b08f1fe9e9cf41f466e88b",
     "hash": "504cca50294cb098ccae1826e4e9ea84f971f953bf7bc84d21ede82b3df64d48"}]}
