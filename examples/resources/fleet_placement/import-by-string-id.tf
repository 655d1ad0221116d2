# Or with an import block (Terraform 1.5 and later): the ID is the placement's name.
import {
  to = fleet_placement.web
  id = "web"
}
