# Or with an import block: <name> for a ClusterResourceEnvelope,
# <namespace>/<name> for a ResourceEnvelope, configmap/<namespace>/<name> for a KubeFleet v0.14
# envelope ConfigMap to migrate.
import {
  to = fleet_envelope.web_quota
  id = "web/web-quota"
}
