"""Guards: the prologue that checks a cache entry still applies and fetches its inputs, and
the cache of compiled entries."""
