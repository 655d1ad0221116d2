// Package channel holds the rules of Azure Kubernetes Fleet Manager
// auto-upgrade channels (fleets/autoUpgradeProfiles) as pure functions: what
// version a channel resolves to from AKS's version list (Resolve), and what an
// auto-upgrade run would do with each member (MemberActions). The profile's
// preview, the data source fleet_kubernetes_versions and the local Fleet API
// emulator call the same code.
//
// Sources, cited rule by rule in comments (MicrosoftDocs/azure-aks-docs):
//   - articles/kubernetes-fleet/concepts-update-orchestration.md ("Auto-upgrade
//     profiles overview", "Rapid channel", "Stable channel",
//     "TargetKubernetesVersion channel", "Minor version skipping behavior",
//     "NodeImage channel", "Planned maintenance windows");
//   - articles/kubernetes-fleet/update-automation.md (TargetKubernetesVersion, LTS);
//   - articles/kubernetes-fleet/faq.md;
//   - articles/aks/supported-kubernetes-versions.md (GA, the N-2 window, LTS upgrades),
//     long-term-support.md, auto-upgrade-cluster.md;
//   - the 2026-06-01 autoupgradeprofile.tsp (channel values, targetKubernetesVersion,
//     longTermSupport).
//
// Where the documents are silent a comment starting with "Choice:" says what
// this package does. Nothing here does I/O or reads a clock.
package channel

import (
	"errors"
	"fmt"
)

// Channel is autoupgradeprofile.tsp UpgradeChannel (SecurityPatch, a preview,
// is not resolved here).
type Channel string

const (
	Stable                  Channel = "Stable"
	Rapid                   Channel = "Rapid"
	NodeImage               Channel = "NodeImage"
	TargetKubernetesVersion Channel = "TargetKubernetesVersion"
)

// Options are the profile's channel settings.
type Options struct {
	// TargetKubernetesVersion is "major.minor", only with the TargetKubernetesVersion channel.
	TargetKubernetesVersion string
	// LongTermSupport allows minors offered only under AKS LTS, only with that channel.
	LongTermSupport bool
}

// Target is what a channel resolves to.
type Target struct {
	Channel Channel
	// KubernetesVersion is the target patch ("1.33.1"); empty for NodeImage.
	KubernetesVersion string
	// NodeImages (NodeImage only): image type → newest version. Each member
	// gets its own region's newest (MemberActions).
	NodeImages map[string]string
	// LongTermSupport is the profile's flag (its runs fail on non-LTS clusters).
	LongTermSupport bool
	// Selection is the profile's node image selection (SelectNodeImages); with
	// ConsistentImages, NodeImages is the run's one version per image type and
	// NoConsistentImage the image types no region set has in common.
	Selection         NodeImageSelection
	NoConsistentImage []string
}

// Resolve says what channel c resolves to over table t. Every rule takes GA
// versions only (concepts-update-orchestration.md: "Auto-upgrade only updates
// to generally available versions of Kubernetes and doesn't update to preview
// versions").
func Resolve(c Channel, o Options, t VersionTable) (Target, error) {
	// autoupgradeprofile.tsp: targetKubernetesVersion is required exactly with
	// the TargetKubernetesVersion channel; longTermSupport only with it.
	if c != TargetKubernetesVersion {
		if o.TargetKubernetesVersion != "" {
			return Target{}, fmt.Errorf("a target Kubernetes version is only for the %s channel, not %s", TargetKubernetesVersion, c)
		}
		if o.LongTermSupport {
			return Target{}, fmt.Errorf("long-term support is only for the %s channel, not %s", TargetKubernetesVersion, c)
		}
	}
	tg := Target{Channel: c, LongTermSupport: o.LongTermSupport}
	switch c {
	case Rapid, Stable:
		n, ok := t.newestGA()
		if !ok {
			return Target{}, errors.New("AKS offers no generally available Kubernetes version here")
		}
		minor := n
		if c == Stable {
			// "The Stable channel is always the minor version before the Rapid
			// channel ... N-1, where N is the latest (Rapid channel) supported
			// Kubernetes minor version."
			minor = minorAt(n.MinorIndex() - 1)
		}
		// "The Rapid channel is always the most recent AKS-supported Kubernetes
		// minor release"; both take its latest patch (update-automation.md:
		// "the latest supported Kubernetes patch release on minor version N-1").
		m, ok := t.ga(minor)
		if !ok {
			return Target{}, fmt.Errorf("the %s channel is minor %s, which AKS does not offer as generally available here", c, minor.MinorString())
		}
		tg.KubernetesVersion = m.Patches[len(m.Patches)-1].String()
	case TargetKubernetesVersion:
		v, err := resolveTargetMinor(o, t)
		if err != nil {
			return Target{}, err
		}
		tg.KubernetesVersion = v.String()
	case NodeImage:
		// "Nodes on different operating systems are updated in accordance with
		// the node image versions aligned to those operating systems."
		tg.NodeImages = t.LatestNodeImages()
		if len(tg.NodeImages) == 0 {
			return Target{}, errors.New("no node image versions are known here")
		}
	default:
		return Target{}, fmt.Errorf("channel %q is not one of %s, %s, %s, %s", c, Stable, Rapid, NodeImage, TargetKubernetesVersion)
	}
	return tg, nil
}

// resolveTargetMinor is the TargetKubernetesVersion channel: "Fleet Manager
// automatically upgrades clusters to the latest patch release of the
// specified target Kubernetes version when the patch is available"
// (concepts-update-orchestration.md).
func resolveTargetMinor(o Options, t VersionTable) (Version, error) {
	if o.TargetKubernetesVersion == "" {
		return Version{}, fmt.Errorf("the %s channel needs a target Kubernetes version (major.minor)", TargetKubernetesVersion)
	}
	minor, err := ParseMinor(o.TargetKubernetesVersion)
	if err != nil {
		return Version{}, err
	}
	m, ok := t.ga(minor)
	if !ok {
		if t.hasPreview(minor) {
			return Version{}, fmt.Errorf("version %s is only in preview here: auto-upgrade targets generally available versions only", minor.MinorString())
		}
		// update-automation.md: "You can't set the target Kubernetes version to
		// a future Kubernetes version that AKS hasn't released."
		return Version{}, fmt.Errorf("AKS does not offer Kubernetes %s here", minor.MinorString())
	}
	if !t.inWindow(minor) {
		// update-automation.md: with --long-term-support "You can only select
		// LTS Kubernetes versions"; the portal's "Allow LTS minor versions"
		// allows "minor versions available only for AKS long term support (LTS)
		// clusters". Without it a target outside the window is refused
		// (faq.md: a target "out of community support" needs LTS or a newer target).
		oldest, newest, _ := t.SupportWindow()
		if !o.LongTermSupport {
			return Version{}, fmt.Errorf("version %s is outside the AKS support window (%s to %s): set long-term support to target a version AKS offers under LTS, or target a newer minor",
				minor.MinorString(), oldest.MinorString(), newest.MinorString())
		}
		if !m.LongTermSupport() {
			return Version{}, fmt.Errorf("version %s is outside the AKS support window (%s to %s) and AKS does not offer it under long-term support",
				minor.MinorString(), oldest.MinorString(), newest.MinorString())
		}
	}
	return m.Patches[len(m.Patches)-1], nil
}
