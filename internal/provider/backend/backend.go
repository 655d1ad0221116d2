// Package backend holds the backend operations every domain shares: reaching the hub and the
// Fleet API from the provider's session, how each CRUD method of a hub object or a Fleet API child
// opens, Read's answer to what is gone, the reads of list resources and the wording of a backend's
// errors. It imports shared, never a domain; shared does not import it.
package backend

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// AddBackendError reports an engine error; a missing backend names the
// provider block to configure.
func AddBackendError(diags *diag.Diagnostics, summary string, err error) {
	if session.IsNotConfigured(err) {
		diags.AddError("Provider backend not configured", err.Error())
		return
	}
	diags.AddError(summary, err.Error())
}
