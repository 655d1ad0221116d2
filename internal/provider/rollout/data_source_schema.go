package rollout

import (
	"context"
	"fmt"
	"strings"

	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// The read-only data sources of resources Terraform did not create
// (fleet_update_run, fleet_update_strategy, fleet_auto_upgrade_profile) show
// the resources' own attributes: these helpers turn a resource's attribute
// into the same attribute of a data source, computed, with its description,
// so the two schemas cannot drift apart.

// computedAttributes converts the named attributes and blocks of a resource schema: a block
// (what the user writes in the resource) becomes a computed nested attribute of the same name.
func computedAttributes(s rschema.Schema, names ...string) map[string]dschema.Attribute {
	out := make(map[string]dschema.Attribute, len(names))
	for _, n := range names {
		if a, ok := s.Attributes[n]; ok {
			out[n] = computedAttribute(a)
			continue
		}
		b, ok := s.Blocks[n]
		if !ok {
			panic(fmt.Sprintf("computedAttributes: the resource schema has no attribute or block %q", n))
		}
		out[n] = computedBlock(b)
	}
	return out
}

// computedBlock is a resource block as a computed data-source nested attribute.
func computedBlock(b rschema.Block) dschema.Attribute {
	// What the data source reads back is never required of it.
	desc := strings.TrimPrefix(b.GetDescription(), "Required. ")
	md := strings.TrimPrefix(b.GetMarkdownDescription(), "Required. ")
	switch v := b.(type) {
	case rschema.ListNestedBlock:
		return dschema.ListNestedAttribute{Computed: true, Description: desc, MarkdownDescription: md,
			NestedObject: dschema.NestedAttributeObject{Attributes: computedBlockObject(v.NestedObject.Attributes, v.NestedObject.Blocks)}}
	case rschema.SingleNestedBlock:
		return dschema.SingleNestedAttribute{Computed: true, Description: desc, MarkdownDescription: md, Attributes: computedBlockObject(v.Attributes, v.Blocks)}
	}
	panic(fmt.Sprintf("computedBlock: no data-source form of %T", b))
}

func computedBlockObject(attrs map[string]rschema.Attribute, blocks map[string]rschema.Block) map[string]dschema.Attribute {
	out := computedNested(attrs)
	for n, b := range blocks {
		out[n] = computedBlock(b)
	}
	return out
}

// computedAttribute is a resource attribute as a computed data-source attribute.
func computedAttribute(a rschema.Attribute) dschema.Attribute {
	desc := a.GetDescription()
	md := a.GetMarkdownDescription()
	switch v := a.(type) {
	case rschema.StringAttribute:
		return dschema.StringAttribute{Computed: true, Description: desc, MarkdownDescription: md, Sensitive: v.Sensitive}
	case rschema.BoolAttribute:
		return dschema.BoolAttribute{Computed: true, Description: desc, MarkdownDescription: md}
	case rschema.Int64Attribute:
		return dschema.Int64Attribute{Computed: true, Description: desc, MarkdownDescription: md}
	case rschema.Float64Attribute:
		return dschema.Float64Attribute{Computed: true, Description: desc, MarkdownDescription: md}
	case rschema.ListAttribute:
		return dschema.ListAttribute{Computed: true, ElementType: v.ElementType, Description: desc, MarkdownDescription: md}
	case rschema.MapAttribute:
		return dschema.MapAttribute{Computed: true, ElementType: v.ElementType, Description: desc, MarkdownDescription: md}
	case rschema.ListNestedAttribute:
		return dschema.ListNestedAttribute{Computed: true, Description: desc, MarkdownDescription: md,
			NestedObject: dschema.NestedAttributeObject{Attributes: computedNested(v.NestedObject.Attributes)}}
	case rschema.MapNestedAttribute:
		return dschema.MapNestedAttribute{Computed: true, Description: desc, MarkdownDescription: md,
			NestedObject: dschema.NestedAttributeObject{Attributes: computedNested(v.NestedObject.Attributes)}}
	case rschema.SingleNestedAttribute:
		return dschema.SingleNestedAttribute{Computed: true, Description: desc, MarkdownDescription: md, Attributes: computedNested(v.Attributes)}
	}
	panic(fmt.Sprintf("computedAttribute: no data-source form of %T", a))
}

func computedNested(attrs map[string]rschema.Attribute) map[string]dschema.Attribute {
	out := make(map[string]dschema.Attribute, len(attrs))
	for n, a := range attrs {
		out[n] = computedAttribute(a)
	}
	return out
}

// lookupAttributes are the inputs every one of these data sources takes: the
// resource's name and, optionally, its fleet.
func lookupAttributes(kind string) map[string]dschema.Attribute {
	return map[string]dschema.Attribute{
		"id": dschema.StringAttribute{Computed: true, Description: "The " + kind + "'s ARM resource ID."},
		"name": dschema.StringAttribute{Required: true, Description: "The " + kind + "'s name.",
			Validators: childNameValidators()},
		"fleet_id": dschema.StringAttribute{Optional: true, Computed: true,
			Description: "The fleet's ARM resource ID. Default: the provider's fleet (azure.resource_group_name and azure.fleet_name)."},
	}
}

// mergeAttributes adds b's attributes to a and returns a.
func mergeAttributes(a, b map[string]dschema.Attribute) map[string]dschema.Attribute {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// resourceSchema is a resource's schema.
func resourceSchema(ctx context.Context, r resource.Resource) rschema.Schema {
	var resp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &resp)
	return resp.Schema
}
