"""The Ray executor: a session on a cluster, an actor pool holding backends, generator jobs as
Ray tasks."""
