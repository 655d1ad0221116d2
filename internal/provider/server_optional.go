package provider

import (
	"context"
	"fmt"
	"iter"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The protocol's optional server interfaces (list resources, actions, state stores) are found by
// tf6server with a type assertion on the served value; fleetServer declares each one and hands the
// call to the framework's server. Should a build's framework server lack one, the call answers
// with this provider's version and what is missing, not tf6server's "upgrade the provider".
var (
	_ tfprotov6.ProviderServerWithListResource = fleetServer{}
	_ tfprotov6.ProviderServerWithActions      = fleetServer{}
	_ tfprotov6.ProviderServerWithStateStores  = fleetServer{}
)

// missing is the error diagnostic of an RPC the framework's server does not implement.
func (s fleetServer) missing(rpc, capability string) []*tfprotov6.Diagnostic {
	return []*tfprotov6.Diagnostic{{
		Severity: tfprotov6.DiagnosticSeverityError,
		Summary:  "terraform-provider-fleet " + s.version + " does not serve " + rpc,
		Detail: fmt.Sprintf("This build of terraform-provider-fleet %s does not implement %s, which Terraform needs for %s. "+
			"It is a defect of this build, not of your configuration or your Terraform: report it with the output of `terraform version`.",
			s.version, rpc, capability),
	}}
}

// List resources (terraform query).

func (s fleetServer) lister() (tfprotov6.ListResourceServer, bool) {
	l, ok := s.ProviderServer.(tfprotov6.ListResourceServer)
	return l, ok
}

func (s fleetServer) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	if l, ok := s.lister(); ok {
		return l.ValidateListResourceConfig(ctx, req)
	}
	return &tfprotov6.ValidateListResourceConfigResponse{Diagnostics: s.missing("ValidateListResourceConfig", "list blocks (terraform query)")}, nil
}

func (s fleetServer) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	if l, ok := s.lister(); ok {
		return l.ListResource(ctx, req)
	}
	diags := s.missing("ListResource", "list blocks (terraform query)")
	return &tfprotov6.ListResourceServerStream{Results: func(yield func(tfprotov6.ListResourceResult) bool) {
		yield(tfprotov6.ListResourceResult{Diagnostics: diags})
	}}, nil
}

// Actions.

func (s fleetServer) actions() (tfprotov6.ActionServer, bool) {
	a, ok := s.ProviderServer.(tfprotov6.ActionServer)
	return a, ok
}

func (s fleetServer) ValidateActionConfig(ctx context.Context, req *tfprotov6.ValidateActionConfigRequest) (*tfprotov6.ValidateActionConfigResponse, error) {
	if a, ok := s.actions(); ok {
		return a.ValidateActionConfig(ctx, req)
	}
	return &tfprotov6.ValidateActionConfigResponse{Diagnostics: s.missing("ValidateActionConfig", "actions")}, nil
}

func (s fleetServer) PlanAction(ctx context.Context, req *tfprotov6.PlanActionRequest) (*tfprotov6.PlanActionResponse, error) {
	if a, ok := s.actions(); ok {
		return a.PlanAction(ctx, req)
	}
	return &tfprotov6.PlanActionResponse{Diagnostics: s.missing("PlanAction", "actions")}, nil
}

func (s fleetServer) InvokeAction(ctx context.Context, req *tfprotov6.InvokeActionRequest) (*tfprotov6.InvokeActionServerStream, error) {
	if a, ok := s.actions(); ok {
		return a.InvokeAction(ctx, req)
	}
	diags := s.missing("InvokeAction", "actions")
	var events iter.Seq[tfprotov6.InvokeActionEvent] = func(yield func(tfprotov6.InvokeActionEvent) bool) {
		yield(tfprotov6.InvokeActionEvent{Type: tfprotov6.CompletedInvokeActionEventType{Diagnostics: diags}})
	}
	return &tfprotov6.InvokeActionServerStream{Events: events}, nil
}

// State stores (the provider offers none; passed through so that Terraform hears the
// framework's own answer).

func (s fleetServer) stateStores() (tfprotov6.StateStoreServer, bool) {
	st, ok := s.ProviderServer.(tfprotov6.StateStoreServer)
	return st, ok
}

func (s fleetServer) ValidateStateStoreConfig(ctx context.Context, req *tfprotov6.ValidateStateStoreConfigRequest) (*tfprotov6.ValidateStateStoreConfigResponse, error) {
	if st, ok := s.stateStores(); ok {
		return st.ValidateStateStoreConfig(ctx, req)
	}
	return &tfprotov6.ValidateStateStoreConfigResponse{Diagnostics: s.missing("ValidateStateStoreConfig", "state stores")}, nil
}

func (s fleetServer) ConfigureStateStore(ctx context.Context, req *tfprotov6.ConfigureStateStoreRequest) (*tfprotov6.ConfigureStateStoreResponse, error) {
	if st, ok := s.stateStores(); ok {
		return st.ConfigureStateStore(ctx, req)
	}
	return &tfprotov6.ConfigureStateStoreResponse{Diagnostics: s.missing("ConfigureStateStore", "state stores")}, nil
}

func (s fleetServer) ReadStateBytes(ctx context.Context, req *tfprotov6.ReadStateBytesRequest) (*tfprotov6.ReadStateBytesStream, error) {
	if st, ok := s.stateStores(); ok {
		return st.ReadStateBytes(ctx, req)
	}
	diags := s.missing("ReadStateBytes", "state stores")
	return &tfprotov6.ReadStateBytesStream{Chunks: func(yield func(tfprotov6.ReadStateByteChunk) bool) {
		yield(tfprotov6.ReadStateByteChunk{Diagnostics: diags})
	}}, nil
}

func (s fleetServer) WriteStateBytes(ctx context.Context, req *tfprotov6.WriteStateBytesStream) (*tfprotov6.WriteStateBytesResponse, error) {
	if st, ok := s.stateStores(); ok {
		return st.WriteStateBytes(ctx, req)
	}
	return &tfprotov6.WriteStateBytesResponse{Diagnostics: s.missing("WriteStateBytes", "state stores")}, nil
}

func (s fleetServer) GetStates(ctx context.Context, req *tfprotov6.GetStatesRequest) (*tfprotov6.GetStatesResponse, error) {
	if st, ok := s.stateStores(); ok {
		return st.GetStates(ctx, req)
	}
	return &tfprotov6.GetStatesResponse{Diagnostics: s.missing("GetStates", "state stores")}, nil
}

func (s fleetServer) DeleteState(ctx context.Context, req *tfprotov6.DeleteStateRequest) (*tfprotov6.DeleteStateResponse, error) {
	if st, ok := s.stateStores(); ok {
		return st.DeleteState(ctx, req)
	}
	return &tfprotov6.DeleteStateResponse{Diagnostics: s.missing("DeleteState", "state stores")}, nil
}

func (s fleetServer) LockState(ctx context.Context, req *tfprotov6.LockStateRequest) (*tfprotov6.LockStateResponse, error) {
	if st, ok := s.stateStores(); ok {
		return st.LockState(ctx, req)
	}
	return &tfprotov6.LockStateResponse{Diagnostics: s.missing("LockState", "state stores")}, nil
}

func (s fleetServer) UnlockState(ctx context.Context, req *tfprotov6.UnlockStateRequest) (*tfprotov6.UnlockStateResponse, error) {
	if st, ok := s.stateStores(); ok {
		return st.UnlockState(ctx, req)
	}
	return &tfprotov6.UnlockStateResponse{Diagnostics: s.missing("UnlockState", "state stores")}, nil
}
