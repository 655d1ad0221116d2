# An envelope is imported by its ConfigMap's <namespace>/<name> on the fleet hub.
terraform import fleet_envelope.guardrails web/guardrails
