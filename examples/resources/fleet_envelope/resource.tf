# Place a validating webhook configuration and a ClusterRole on the clusters that get the "web"
# namespace, without creating them on the fleet hub (where the webhook would act on the hub's own
# API server). The envelope is a ConfigMap in "web" (which must exist on the hub); KubeFleet places
# the objects it wraps instead of the ConfigMap.
resource "fleet_envelope" "guardrails" {
  namespace = "web"
  name      = "guardrails"

  manifests = [
    yamlencode({
      apiVersion = "admissionregistration.k8s.io/v1"
      kind       = "ValidatingWebhookConfiguration"
      metadata   = { name = "web-guardrails" }
      webhooks = [{
        name                    = "guardrails.web.example.com"
        admissionReviewVersions = ["v1"]
        sideEffects             = "None"
        failurePolicy           = "Ignore"
        clientConfig            = { service = { namespace = "web", name = "guardrails", path = "/validate" } }
        rules = [{
          apiGroups   = ["apps"]
          apiVersions = ["v1"]
          operations  = ["CREATE", "UPDATE"]
          resources   = ["deployments"]
        }]
      }]
    }),
    # YAML text, e.g. file("web-reader.yaml"), may hold several documents separated by `---` lines.
    <<-EOT
    apiVersion: rbac.authorization.k8s.io/v1
    kind: ClusterRole
    metadata:
      name: web-reader
    rules:
      - apiGroups: ["apps"]
        resources: [deployments]
        verbs: [get, list, watch]
    ---
    apiVersion: rbac.authorization.k8s.io/v1
    kind: ClusterRoleBinding
    metadata:
      name: web-reader
    roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: web-reader}
    subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: web-readers}]
    EOT
  ]
}

resource "fleet_placement" "web" {
  name               = "web"
  resource_selectors = [{ version = "v1", kind = "Namespace", name = "web" }]
  policy = {
    placement_type = "PickAll"
  }
  wait_for_rollout = true

  # The first rollout already carries the envelope.
  depends_on = [fleet_envelope.guardrails]
}
