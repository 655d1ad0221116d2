# A NodePool's disruption settings are imported by <cluster>/<node_pool>. Import takes the fields
# terraform-provider-fleet's field manager owns on the NodePool (none if it never managed them:
# the first apply then takes over what the configuration sets).
terraform import fleet_nodepool_disruption.default canary-east/default
