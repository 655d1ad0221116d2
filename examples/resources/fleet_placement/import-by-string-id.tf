# Or with an import block: the ID is the placement's name.
import {
  to = fleet_placement.web
  id = "web"
}
