package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// RemoveGone is Read's answer to an object that no longer exists (gone: the
// client's IsNotFound of the read's error): the resource leaves state, so the
// next plan creates it again, and the log says so. It reports whether it did.
func RemoveGone(ctx context.Context, resp *resource.ReadResponse, gone bool, what string, fields map[string]any) bool {
	if !gone {
		return false
	}
	tflog.Warn(ctx, what+" gone; removing it from state", fields)
	resp.State.RemoveResource(ctx)
	return true
}
