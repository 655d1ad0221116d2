# Or with an import block (Terraform 1.5 and later): the ID is <namespace>/<name>.
import {
  to = fleet_resource_placement.web
  id = "team-web/web"
}
