import {
  to = fleet_staged_update_strategy.rings
  id = "rings"
}
