"""What readers see: board text, news, option leads, map, picture, rules text, export; pure
functions of a game's state and a reader."""
