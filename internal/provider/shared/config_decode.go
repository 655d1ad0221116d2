package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

// DecodeConfig is how a ValidateConfig starts: the configuration, which may hold unknown values,
// decoded into M by DecodePartial (ignore: the computed attributes), its errors added to diags;
// ok is false when diags has an error.
func DecodeConfig[M any](ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics, ignore ...path.Path) (m M, unknown []path.Path, ok bool) {
	unknown, d := DecodePartial(ctx, cfg, &m, ignore...)
	diags.Append(d...)
	return m, unknown, !diags.HasError()
}
