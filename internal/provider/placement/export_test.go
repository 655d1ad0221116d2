package placement

// What the external tests (package placement_test) use of the package's own names.

const (
	TestRole    = testRole
	TestWebhook = testWebhook
)
