# Or with an import block: the ID is <namespace>/<name>.
import {
  to = fleet_resource_placement.web
  id = "team-web/web"
}
