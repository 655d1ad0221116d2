package emulator_test

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

func (fx *fixture) clusters(t *testing.T) *armcontainerservice.ClientFactory {
	t.Helper()
	cf, err := armcontainerservice.NewClientFactory(fx.sub, fx.cred, fx.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	return cf
}

func TestManagedClustersClientGet(t *testing.T) {
	fx := newFixture(t)
	mc := fx.clusters(t).NewManagedClustersClient()
	got, err := mc.Get(context.Background(), fx.rg, "prod-east-2", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := got.ManagedCluster
	if *c.Name != "prod-east-2" || *c.Location != "eastus" || *c.ID != "/subscriptions/"+fx.sub+"/resourceGroups/"+fx.rg+"/providers/Microsoft.ContainerService/managedClusters/prod-east-2" || c.ETag == nil {
		t.Fatalf("cluster %s %s %s", *c.Name, *c.Location, *c.ID)
	}
	p := c.Properties
	if *p.KubernetesVersion != "1.31.9" || *p.CurrentKubernetesVersion != "1.31.9" || *p.ProvisioningState != "Succeeded" || *p.PowerState.Code != armcontainerservice.CodeRunning {
		t.Fatalf("properties: version %s/%s state %s power %s", *p.KubernetesVersion, *p.CurrentKubernetesVersion, *p.ProvisioningState, *p.PowerState.Code)
	}
	if len(p.AgentPoolProfiles) != 1 {
		t.Fatalf("%d agent pools", len(p.AgentPoolProfiles))
	}
	ap := p.AgentPoolProfiles[0]
	if *ap.Name != "system" || *ap.Count != 2 || *ap.Mode != armcontainerservice.AgentPoolModeSystem ||
		*ap.OSType != armcontainerservice.OSTypeLinux || *ap.OSSKU != armcontainerservice.OSSKUUbuntu ||
		*ap.NodeImageVersion != "AKSUbuntu-2204gen2containerd-202511.04.0" ||
		*ap.OrchestratorVersion != "1.31.9" || *ap.CurrentOrchestratorVersion != "1.31.9" {
		t.Fatalf("agent pool %s count %d mode %s os %s/%s image %s versions %s/%s", *ap.Name, *ap.Count, *ap.Mode, *ap.OSType, *ap.OSSKU,
			*ap.NodeImageVersion, *ap.OrchestratorVersion, *ap.CurrentOrchestratorVersion)
	}

	_, err = mc.Get(context.Background(), fx.rg, "not-a-member", nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != 404 || re.ErrorCode != "ResourceNotFound" {
		t.Fatalf("missing cluster: %v", err)
	}
}

func TestListClusterUserCredentials(t *testing.T) {
	fx := newFixture(t)
	mc := fx.clusters(t).NewManagedClustersClient()
	got, err := mc.ListClusterUserCredentials(context.Background(), fx.rg, "canary-east", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Kubeconfigs) != 1 || *got.Kubeconfigs[0].Name != "clusterUser" || !bytes.Equal(got.Kubeconfigs[0].Value, canaryKubeconfig) {
		t.Fatalf("kubeconfigs %+v", got.Kubeconfigs)
	}
	_, err = mc.ListClusterUserCredentials(context.Background(), fx.rg, "prod-east-1", nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != 400 || !strings.Contains(err.Error(), "has no API server") {
		t.Fatalf("simulated member: %v", err)
	}
}

func TestMaintenanceConfigurations(t *testing.T) {
	fx := newFixture(t)
	mcc := fx.clusters(t).NewMaintenanceConfigurationsClient()
	var got []*armcontainerservice.MaintenanceConfiguration
	pager := mcc.NewListByManagedClusterPager(fx.rg, "prod-west-1", nil)
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page.Value...)
	}
	if len(got) != 1 || *got[0].Name != "aksManagedAutoUpgradeSchedule" ||
		*got[0].Type != "Microsoft.ContainerService/managedClusters/maintenanceConfigurations" {
		t.Fatalf("configurations %+v", got)
	}
	mw := got[0].Properties.MaintenanceWindow
	// prod-west-1: {weekly: Saturday, startTime: "02:00", durationHours: 4}, defaults filled.
	if *mw.Schedule.Weekly.DayOfWeek != armcontainerservice.WeekDaySaturday || *mw.Schedule.Weekly.IntervalWeeks != 1 ||
		*mw.DurationHours != 4 || *mw.StartTime != "02:00" || *mw.UTCOffset != "+00:00" ||
		!mw.StartDate.Equal(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)) || mw.Schedule.Daily != nil {
		t.Fatalf("window %+v schedule %+v", mw, mw.Schedule.Weekly)
	}

	one, err := mcc.Get(context.Background(), fx.rg, "canary-east", "aksManagedAutoUpgradeSchedule", nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := one.Properties.MaintenanceWindow; *w.Schedule.Weekly.DayOfWeek != armcontainerservice.WeekDayMonday || *w.DurationHours != 8 || *w.StartTime != "00:00" {
		t.Fatalf("canary-east window %+v", w)
	}
	_, err = mcc.Get(context.Background(), fx.rg, "canary-east", "aksManagedNodeOSUpgradeSchedule", nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != 404 {
		t.Fatalf("absent node OS schedule: %v", err)
	}

	// A member without windows has none; a missing cluster is a missing parent.
	page, err := mcc.NewListByManagedClusterPager(fx.rg, "prod-east-1", nil).NextPage(context.Background())
	if err != nil || len(page.Value) != 0 {
		t.Fatalf("prod-east-1: %v %+v", err, page.Value)
	}
	_, err = mcc.NewListByManagedClusterPager(fx.rg, "nope", nil).NextPage(context.Background())
	if !errors.As(err, &re) || re.StatusCode != 404 || re.ErrorCode != "ParentResourceNotFound" {
		t.Fatalf("missing cluster: %v", err)
	}
}

func TestDailyAndNodeOSMaintenanceWindows(t *testing.T) {
	fx := newFixture(t, func(c *emulator.Config) {
		m, _ := c.File.Member("prod-east-1")
		m.NodeOSMaintenanceWindow = &fleetfile.MaintenanceWindow{Daily: true, StartTime: "22:30", DurationHours: 6, UTCOffset: "-05:00", StartDate: "2026-12-01"}
	})
	got, err := fx.clusters(t).NewMaintenanceConfigurationsClient().Get(context.Background(), fx.rg, "prod-east-1", "aksManagedNodeOSUpgradeSchedule", nil)
	if err != nil {
		t.Fatal(err)
	}
	w := got.Properties.MaintenanceWindow
	if w.Schedule.Weekly != nil || *w.Schedule.Daily.IntervalDays != 1 || *w.StartTime != "22:30" || *w.DurationHours != 6 ||
		*w.UTCOffset != "-05:00" || !w.StartDate.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("daily window %+v", w)
	}
}

func TestListKubernetesVersions(t *testing.T) {
	fx := newFixture(t)
	mc := fx.clusters(t).NewManagedClustersClient()
	versions := func(location string) map[string][]string {
		t.Helper()
		got, err := mc.ListKubernetesVersions(context.Background(), location, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for _, v := range got.Values {
			key := *v.Version
			if *v.IsPreview {
				key += " preview"
			}
			if *v.IsDefault {
				key += " default"
			}
			for p := range v.PatchVersions {
				out[key] = append(out[key], p)
			}
			sort.Strings(out[key])
		}
		return out
	}
	before := map[string][]string{
		"1.31": {"1.31.9"}, "1.32 default": {"1.32.5"}, "1.33": {"1.33.1"}, "1.34 preview": {"1.34.0"},
	}
	if got := versions("eastus"); !reflect.DeepEqual(got, before) {
		t.Fatalf("eastus at start: %v, want %v", got, before)
	}
	// 1.33.2 is released at 2026-11-23T12:00:00Z: 12 simulated hours, 12 real seconds at 3600x.
	fx.real.Advance(12 * time.Second)
	after := map[string][]string{
		"1.31": {"1.31.9"}, "1.32 default": {"1.32.5"}, "1.33": {"1.33.1", "1.33.2"}, "1.34 preview": {"1.34.0"},
	}
	if got := versions("East US"); !reflect.DeepEqual(got, after) {
		t.Fatalf("eastus after the release: %v, want %v", got, after)
	}
	if got := versions("westeurope"); len(got) != 3 || len(got["1.34 preview"]) != 0 {
		t.Fatalf("westeurope: %v", got)
	}

	// Upgrades: later patches of the minor and the next minor's, GA only from GA.
	got, err := mc.ListKubernetesVersions(context.Background(), "eastus", nil)
	if err != nil {
		t.Fatal(err)
	}
	upgrades := map[string][]string{}
	for _, v := range got.Values {
		for p, pv := range v.PatchVersions {
			for _, u := range pv.Upgrades {
				upgrades[p] = append(upgrades[p], *u)
			}
		}
	}
	if !reflect.DeepEqual(upgrades["1.32.5"], []string{"1.33.1", "1.33.2"}) || !reflect.DeepEqual(upgrades["1.33.1"], []string{"1.33.2"}) || len(upgrades["1.31.9"]) != 1 {
		t.Fatalf("upgrades %v", upgrades)
	}

	_, err = mc.ListKubernetesVersions(context.Background(), "mars", nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != 400 || re.ErrorCode != "LocationNotAvailableForResourceType" {
		t.Fatalf("unknown location: %v", err)
	}
}
