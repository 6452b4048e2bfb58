#pragma once
// PriceTable: what a node costs per hour, for `trimaranctl nodes` (docs/trimaranctl.md,
// spec dashboard-and-simulator.md §A3/§A4). No network access: prices come from
//
//   1. the node label `eks-node-viewer/instance-price=<float>` (applied by the model,
//      model.h, not here);
//   2. a price file (--price-file), CSV or YAML, per instance type, capacity type and,
//      optionally, zone; a zone-specific row wins over a zone-less one;
//   3. the built-in table: EC2 on-demand Linux prices in us-east-1 (kBuiltinPriceSource,
//      kBuiltinPriceDate), on-demand only.
//
// Capacity types: a node without a capacity-type label is priced as on-demand. A spot
// node is priced from the price file; without a spot row it is priced at the on-demand
// price minus --spot-discount percent when that flag is given, else its price is
// unknown. Spot prices vary by zone and by the hour, so no spot price is built in.
// Reserved and Fargate nodes are priced from the price file only. An unknown price is
// std::nullopt, rendered `-` (never $0).
//
// Price file formats (both: instance type and capacity type are required, zone optional,
// capacity type one of on-demand, spot, reserved, fargate, case-insensitive, and
// ON_DEMAND/SPOT as EKS writes them):
//   CSV:  instance_type,zone,capacity_type,usd_per_hour   (a header row with these names
//         is allowed; `#` starts a comment line; blank lines are skipped)
//   YAML: prices: [{instanceType: m6i.xlarge, zone: us-east-1a, capacityType: spot,
//                   usdPerHour: 0.071}, ...]
// Errors are InvalidArgument naming the line (CSV) or the list index (YAML).
//
// Thread-safety: a PriceTable is a value; const methods are safe for concurrent use.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trimaran::dashboard {

// Where the built-in table comes from, and when it was generated.
inline constexpr char kBuiltinPriceSource[] =
    "EC2 on-demand Linux, us-east-1, AWS Price List API as generated in "
    "aws/karpenter-provider-aws zz_generated.pricing_aws.go (identical in "
    "awslabs/eks-node-viewer's generated table of 2025-04-14)";
inline constexpr char kBuiltinPriceDate[] = "2026-01-19";

enum class CapacityType { kUnknown, kOnDemand, kSpot, kReserved, kFargate };

// "On-Demand", "Spot", "Reserved", "Fargate" or "-".
absl::string_view CapacityTypeName(CapacityType type);
// "on-demand", "spot", "reserved", "fargate" or "" (JSON and price files).
absl::string_view CapacityTypeKey(CapacityType type);
// Parses a price-file or label value ("on-demand", "ON_DEMAND", "spot", ...).
std::optional<CapacityType> ParseCapacityType(absl::string_view text);

struct PriceEntry {
  std::string instance_type;
  std::string zone;  // "" = any zone
  CapacityType capacity_type = CapacityType::kOnDemand;
  double usd_per_hour = 0;
};

class PriceTable {
 public:
  // An empty table.
  PriceTable() = default;
  // The built-in on-demand table.
  static PriceTable Builtin();

  // Adds `entry`, replacing one with the same type, zone and capacity type.
  void Set(const PriceEntry& entry);
  // Spot nodes without a spot price: on-demand × (1 - percent/100). nullopt: unknown.
  void set_spot_discount_percent(std::optional<double> percent) { spot_discount_ = percent; }

  // The hourly price as described at the top; nullopt when unknown. kUnknown capacity is
  // priced as on-demand.
  std::optional<double> Lookup(absl::string_view instance_type, absl::string_view zone,
                               CapacityType capacity_type) const;

  size_t size() const { return prices_.size(); }

 private:
  std::optional<double> Find(absl::string_view instance_type, absl::string_view zone,
                             CapacityType capacity_type) const;

  // Key: "<type>|<zone>|<capacity key>".
  absl::flat_hash_map<std::string, double> prices_;
  std::optional<double> spot_discount_;
};

// Parse a price file (formats above).
absl::StatusOr<std::vector<PriceEntry>> ParsePriceCsv(absl::string_view text);
absl::StatusOr<std::vector<PriceEntry>> ParsePriceYaml(absl::string_view text);
// Reads `path` (.csv: CSV; .yaml/.yml/.json: YAML; else CSV if the first
// non-comment line has commas) and adds its entries to `table`. NotFound when
// unreadable; errors name the path.
absl::Status LoadPriceFile(const std::string& path, PriceTable& table);

}  // namespace trimaran::dashboard
