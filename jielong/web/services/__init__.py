"""The work the routes share that outlives one request: the hint process pool
and who may use it, winnable and daily deals, costly work, bounded growth."""
