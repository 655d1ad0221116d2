package shared

import (
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Schema fragments every resource declares the same way.

// IDAttribute is a resource's `id`: computed, and kept from state once known.
func IDAttribute(description string) rschema.StringAttribute {
	return rschema.StringAttribute{Computed: true, Description: description, PlanModifiers: UseStateForUnknown()}
}

// ComputedString is a computed string attribute: a preview's or a status's.
func ComputedString(description string) rschema.StringAttribute {
	return rschema.StringAttribute{Computed: true, Description: description}
}

// ComputedInt64 is a computed number: a count, an index.
func ComputedInt64(description string) rschema.Int64Attribute {
	return rschema.Int64Attribute{Computed: true, Description: description}
}

// ComputedStrings is a computed list of strings.
func ComputedStrings(description string) rschema.ListAttribute {
	return rschema.ListAttribute{Computed: true, ElementType: types.StringType, Description: description}
}

// ComputedStringMap is a computed map of strings.
func ComputedStringMap(description string) rschema.MapAttribute {
	return rschema.MapAttribute{Computed: true, ElementType: types.StringType, Description: description}
}

// ComputedObjects is a computed list of objects with these attributes.
func ComputedObjects(description string, attributes map[string]rschema.Attribute) rschema.ListNestedAttribute {
	return rschema.ListNestedAttribute{Computed: true, Description: description, NestedObject: rschema.NestedAttributeObject{Attributes: attributes}}
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

// UseStateForUnknown is the plan modifiers of a computed string attribute kept from state once known.
func UseStateForUnknown() []planmodifier.String {
	return []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
}

// KeptOrReplaced is the plan modifiers of an optional and computed string attribute (a fleet ID that
// defaults to the provider's fleet): kept from state when not set, and replacing the resource when it changes.
func KeptOrReplaced() []planmodifier.String {
	return []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()}
}
