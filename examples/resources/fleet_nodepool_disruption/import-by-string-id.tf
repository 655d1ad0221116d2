# Or with an import block: the ID is <cluster>/<node_pool>.
import {
  to = fleet_nodepool_disruption.default
  id = "canary-east/default"
}
