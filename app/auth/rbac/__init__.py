"""Role-based access control: rule matching, the policy in storage, the authorizer, escalation checks,
the default (bootstrap) policy and ClusterRole aggregation."""
