# Place a validating webhook configuration and a ClusterRole on every member cluster without creating
# them on the fleet hub (where the webhook would act on the hub's own API server). Without a
# namespace the envelope is a ClusterResourceEnvelope: cluster-scoped objects only.
resource "fleet_envelope" "guardrails" {
  name = "web-guardrails"

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

# With a namespace the envelope is a ResourceEnvelope in that hub namespace (which must exist):
# objects of that namespace only, each with its metadata.namespace. A ResourceQuota on the hub would
# limit the hub's own namespace; wrapped, it limits the members' only.
resource "fleet_envelope" "web_quota" {
  namespace = "web"
  name      = "web-quota"

  manifests = [yamlencode({
    apiVersion = "v1"
    kind       = "ResourceQuota"
    metadata   = { name = "web", namespace = "web" }
    spec       = { hard = { pods = "50" } }
  })]
}

resource "fleet_placement" "web" {
  name = "web"
  # The namespace with everything in it, the ResourceEnvelope included.
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "web"
  }
  # A ClusterResourceEnvelope is selected by its kind and name.
  resource_selector {
    group   = "placement.kubernetes-fleet.io"
    version = "v1beta1"
    kind    = fleet_envelope.guardrails.kind
    name    = fleet_envelope.guardrails.name
  }
  policy {
    placement_type = "PickAll"
  }
  wait_for_rollout = true

  # The first rollout already carries the ResourceEnvelope.
  depends_on = [fleet_envelope.web_quota]
}
