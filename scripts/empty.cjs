// An empty module: the floor for the activation benchmark.
