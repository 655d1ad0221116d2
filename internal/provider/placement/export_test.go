package placement

// What the external tests (package placement_test) use of the package's own names.

const (
	TestRole    = testRole
	TestWebhook = testWebhook
	// TestWebhookJSON is testWebhook as JSON.
	TestWebhookJSON = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"envelope-deny"},"webhooks":[]}`
)
