"""The one flow: mail in -> commands -> game -> mail out, for replies, the game master and the
clock."""
