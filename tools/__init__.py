"""Programs around the engine, outside its pure package: the benchmark and a bot game to watch."""
