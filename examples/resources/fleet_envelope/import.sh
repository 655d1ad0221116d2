# A ClusterResourceEnvelope is imported by its name, a ResourceEnvelope by <namespace>/<name>.
terraform import fleet_envelope.guardrails web-guardrails
terraform import fleet_envelope.web_quota web/web-quota

# A KubeFleet v0.14 envelope ConfigMap (which KubeFleet v0.18 places as a plain ConfigMap) is imported
# as configmap/<namespace>/<name>; the next apply replaces it with the envelope object and deletes it.
terraform import fleet_envelope.guardrails configmap/web/guardrails
