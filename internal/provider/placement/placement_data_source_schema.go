package placement

import (
	"fmt"

	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// dataSourceAttributesOf turns resource attributes into a data source's: the same shape and
// validators; defaults (which data sources do not have) are dropped, so an attribute that was
// Optional+Computed only for its default becomes Optional, and the engine applies the default.
func dataSourceAttributesOf(in map[string]rschema.Attribute) map[string]dschema.Attribute {
	out := make(map[string]dschema.Attribute, len(in))
	for name, a := range in {
		out[name] = dataSourceAttributeOf(a)
	}
	return out
}

func dataSourceAttributeOf(a rschema.Attribute) dschema.Attribute {
	optional := a.IsOptional()
	computed := a.IsComputed() && !optional
	required := a.IsRequired()
	switch a := a.(type) {
	case rschema.StringAttribute:
		return dschema.StringAttribute{Required: required, Optional: optional, Computed: computed, Description: a.Description, Validators: a.Validators}
	case rschema.Int64Attribute:
		return dschema.Int64Attribute{Required: required, Optional: optional, Computed: computed, Description: a.Description, Validators: a.Validators}
	case rschema.BoolAttribute:
		return dschema.BoolAttribute{Required: required, Optional: optional, Computed: computed, Description: a.Description, Validators: a.Validators}
	case rschema.ListAttribute:
		return dschema.ListAttribute{Required: required, Optional: optional, Computed: computed, Description: a.Description, Validators: a.Validators, ElementType: a.ElementType}
	case rschema.MapAttribute:
		return dschema.MapAttribute{Required: required, Optional: optional, Computed: computed, Description: a.Description, Validators: a.Validators, ElementType: a.ElementType}
	case rschema.ListNestedAttribute:
		return dschema.ListNestedAttribute{Required: required, Optional: optional, Computed: computed, Description: a.Description, Validators: a.Validators,
			NestedObject: dschema.NestedAttributeObject{Attributes: dataSourceAttributesOf(a.NestedObject.Attributes)}}
	case rschema.SingleNestedAttribute:
		return dschema.SingleNestedAttribute{Required: required, Optional: optional, Computed: computed, Description: a.Description, Validators: a.Validators,
			Attributes: dataSourceAttributesOf(a.Attributes)}
	}
	panic(fmt.Sprintf("dataSourceAttribute: %T is not handled", a))
}

// dataSourceBlocksOf turns resource blocks into a data source's, as dataSourceAttributesOf does
// their attributes.
func dataSourceBlocksOf(in map[string]rschema.Block) map[string]dschema.Block {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]dschema.Block, len(in))
	for name, b := range in {
		out[name] = dataSourceBlockOf(b)
	}
	return out
}

func dataSourceBlockOf(b rschema.Block) dschema.Block {
	switch b := b.(type) {
	case rschema.ListNestedBlock:
		return dschema.ListNestedBlock{Description: b.Description, Validators: b.Validators,
			NestedObject: dschema.NestedBlockObject{Attributes: dataSourceAttributesOf(b.NestedObject.Attributes), Blocks: dataSourceBlocksOf(b.NestedObject.Blocks)}}
	case rschema.SingleNestedBlock:
		return dschema.SingleNestedBlock{Description: b.Description, Validators: b.Validators,
			Attributes: dataSourceAttributesOf(b.Attributes), Blocks: dataSourceBlocksOf(b.Blocks)}
	}
	panic(fmt.Sprintf("dataSourceBlock: %T is not handled", b))
}
