module github.com/fleetops/terraform-provider-fleet/tools/kubernetes-provider

go 1.15

require github.com/hashicorp/terraform-provider-kubernetes v1.13.4

replace (
	github.com/go-openapi/spec => github.com/go-openapi/spec v0.19.5
	k8s.io/cli-runtime => k8s.io/cli-runtime v0.19.1
	k8s.io/client-go => k8s.io/client-go v0.19.1
	github.com/Azure/go-autorest/autorest => github.com/tombuildsstuff/go-autorest/autorest v0.10.1-0.20200416184303-d4e299a3c04a
	github.com/moby/term => github.com/moby/term v0.0.0-20200507123241-dbdd9cc6608d
	golang.org/x/sys => golang.org/x/sys v0.0.0-20200826173525-f9321e4c35a6
	vbom.ml/util => ./stub/vbom
)
