"""The API, one router per resource: games, boards, the deal catalogue."""
