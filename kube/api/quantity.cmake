# Owned by the Quantity implementation (kube/api/quantity.*).
