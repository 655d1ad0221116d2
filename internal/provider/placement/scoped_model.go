package placement

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// scopedModel decodes and saves the model of a hub resource that comes in two scopes, as
// KubeFleet's cluster-scoped objects and their namespaced twins do: the code works on the
// cluster-scoped model M, and the namespaced resource's model N is M with a namespace, converted
// by Shared and Of.
type scopedModel[M, N any] struct {
	Namespaced bool
	Shared     func(*N) M
	Of         func(*M) *N
}

// Decode reads a configuration or plan that may hold unknown values (shared.DecodePartial) into M; the
// computed paths, unknown by nature at plan, are not reported.
func (s scopedModel[M, N]) Decode(ctx context.Context, cfg tfsdk.Config, computed ...path.Path) (M, []path.Path, diag.Diagnostics) {
	if !s.Namespaced {
		var m M
		unknown, diags := shared.DecodePartial(ctx, cfg, &m, computed...)
		return m, unknown, diags
	}
	var n N
	unknown, diags := shared.DecodePartial(ctx, cfg, &n, computed...)
	return s.Shared(&n), unknown, diags
}

// Get reads a plan or state into m.
func (s scopedModel[M, N]) Get(ctx context.Context, from shared.ModelSource, m *M) diag.Diagnostics {
	if !s.Namespaced {
		return from.Get(ctx, m)
	}
	var n N
	diags := from.Get(ctx, &n)
	*m = s.Shared(&n)
	return diags
}

// Set writes m into a state.
func (s scopedModel[M, N]) Set(ctx context.Context, st *tfsdk.State, m *M) diag.Diagnostics {
	if !s.Namespaced {
		return st.Set(ctx, m)
	}
	return st.Set(ctx, s.Of(m))
}

// Source is from as the shared.ModelSource of M that backend.WithHubModel decodes (Get).
func (s scopedModel[M, N]) Source(from shared.ModelSource) shared.ModelSource {
	return scopedSource[M, N]{s, from}
}

type scopedSource[M, N any] struct {
	scope scopedModel[M, N]
	from  shared.ModelSource
}

// Get decodes into target, an *M (backend.WithHubModel's).
func (s scopedSource[M, N]) Get(ctx context.Context, target any) diag.Diagnostics {
	m, _ := target.(*M)
	return s.scope.Get(ctx, s.from, m)
}
