# Or with an import block (Terraform 1.5 and later): the ID is <namespace>/<name>.
import {
  to = fleet_envelope.guardrails
  id = "web/guardrails"
}
