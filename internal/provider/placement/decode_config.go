package placement

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// decodeConfig is how a ValidateConfig starts: the configuration, which may hold unknown values,
// decoded into M by shared.DecodePartial (ignore: the computed attributes), its errors added to diags;
// ok is false when diags has an error.
func decodeConfig[M any](ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics, ignore ...path.Path) (m M, unknown []path.Path, ok bool) {
	unknown, d := shared.DecodePartial(ctx, cfg, &m, ignore...)
	diags.Append(d...)
	return m, unknown, !diags.HasError()
}
