import {
  to = fleet_staged_update_run.web_r3
  id = "web-r3"
}
