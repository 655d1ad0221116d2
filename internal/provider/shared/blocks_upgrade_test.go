package shared

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestUpgradeBlocksJSON(t *testing.T) {
	old := `{"id":"x","stages":[{"name":"s1","groups":[{"name":"g","before_gates":[{"type":"Approval"}]}],"before_gates":null}],
		"strategy":{"type":"RollingUpdate","max_unavailable":"25%"},"other":{"strategy":{"type":"RollingUpdate","max_unavailable":"25%"}}}`
	got, err := UpgradeBlocksJSON([]byte(old), BlockRenames{
		Renames:       map[string]string{"stages": "stage", "stages.groups": "group", "stages.groups.before_gates": "before_gate", "stages.before_gates": "before_gate"},
		NullWhenEqual: map[string]any{"strategy": map[string]any{"type": "RollingUpdate", "max_unavailable": "25%"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"x","stage":[{"name":"s1","group":[{"name":"g","before_gate":[{"type":"Approval"}]}],"before_gate":null}],
		"strategy":null,"other":{"strategy":{"type":"RollingUpdate","max_unavailable":"25%"}}}`
	var g, w any
	_ = json.Unmarshal(got, &g)
	_ = json.Unmarshal([]byte(want), &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got %s\nwant %s", got, want)
	}
	// A value the user changed from the default is kept.
	got, _ = UpgradeBlocksJSON([]byte(`{"strategy":{"type":"External"}}`), BlockRenames{NullWhenEqual: map[string]any{"strategy": map[string]any{"type": "RollingUpdate"}}})
	if string(got) != `{"strategy":{"type":"External"}}` {
		t.Errorf("a changed strategy was not kept: %s", got)
	}
}
