package shared

import (
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Schema fragments every resource declares the same way.

// The values of a run's wait_for (fleet_update_run, fleet_staged_update_run): what apply waits for.
const (
	WaitNone      = "none"
	WaitStarted   = "started"
	WaitCompleted = "completed"
)

// IDAttribute is a resource's `id`: computed, and kept from state once known.
func IDAttribute(description string) rschema.StringAttribute {
	return rschema.StringAttribute{Computed: true, Description: description, PlanModifiers: useStateForUnknown()}
}

// ComputedString is a computed string attribute: a preview's or a status's.
func ComputedString(description string) rschema.StringAttribute {
	return rschema.StringAttribute{Computed: true, Description: description}
}

// ComputedInt64 is a computed number: a count, an index.
func ComputedInt64(description string) rschema.Int64Attribute {
	return rschema.Int64Attribute{Computed: true, Description: description}
}

// ReplacingAttribute is a required string attribute whose change replaces the resource (a name, a
// namespace, what the resource belongs to).
func ReplacingAttribute(description string, validators ...validator.String) rschema.StringAttribute {
	return rschema.StringAttribute{Required: true, Description: description, PlanModifiers: RequiresReplace(), Validators: validators}
}

// RequiresReplace is the plan modifiers of a string attribute whose change replaces the resource.
func RequiresReplace() []planmodifier.String {
	return []planmodifier.String{stringplanmodifier.RequiresReplace()}
}

// useStateForUnknown is the plan modifiers of a computed string attribute kept from state once known.
func useStateForUnknown() []planmodifier.String {
	return []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
}

// KeptOrReplaced is the plan modifiers of an optional and computed string attribute (a fleet ID that
// defaults to the provider's fleet): kept from state when not set, and replacing the resource when it changes.
func KeptOrReplaced() []planmodifier.String {
	return []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()}
}
