# Or with an import block (Terraform 1.5 and later): the ID is <cluster>/<node_pool>.
import {
  to = fleet_nodepool_disruption.default
  id = "canary-east/default"
}
