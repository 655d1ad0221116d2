// Package gcs stands in for Terraform's "gcs" state backend, which this
// build leaves out (tools/terraform builds the CLI for the provider's tests).
// Configuring it fails with an error that says so.
package gcs

import (
	"github.com/hashicorp/terraform/internal/backend"
	"github.com/hashicorp/terraform/internal/configs/configschema"
	"github.com/hashicorp/terraform/internal/states/statemgr"
	"github.com/hashicorp/terraform/internal/tfdiags"
	"github.com/zclconf/go-cty/cty"
)

// New returns the stand-in backend.
func New() backend.Backend { return notBuilt{} }

type notBuilt struct{}

func (notBuilt) err() tfdiags.Diagnostics {
	var d tfdiags.Diagnostics
	return d.Append(tfdiags.Sourceless(tfdiags.Error, "State backend \"gcs\" not built",
		"This Terraform was built by terraform-provider-fleet's Makefile (tools/terraform) for its tests, with the local state backend only. Use the local backend, or an official Terraform release for \"gcs\"."))
}

func (notBuilt) ConfigSchema() *configschema.Block                            { return &configschema.Block{} }
func (b notBuilt) PrepareConfig(v cty.Value) (cty.Value, tfdiags.Diagnostics) { return v, b.err() }
func (b notBuilt) Configure(cty.Value) tfdiags.Diagnostics                    { return b.err() }
func (b notBuilt) StateMgr(string) (statemgr.Full, tfdiags.Diagnostics)       { return nil, b.err() }
func (b notBuilt) DeleteWorkspace(string, bool) tfdiags.Diagnostics           { return b.err() }
func (b notBuilt) Workspaces() ([]string, tfdiags.Diagnostics)                { return nil, b.err() }
