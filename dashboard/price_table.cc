#include "dashboard/price_table.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::dashboard {
namespace {

// The built-in table (spec dashboard-and-simulator.md §A4): USD per hour, on-demand.
struct BuiltinPrice {
  const char* type;
  double usd;
};
constexpr BuiltinPrice kBuiltin[] = {
    {"m5.large", 0.0960},    {"m5.xlarge", 0.1920},   {"m5.2xlarge", 0.3840},
    {"m5.4xlarge", 0.7680},  {"m6i.large", 0.0960},   {"m6i.xlarge", 0.1920},
    {"m6i.2xlarge", 0.3840}, {"m6i.4xlarge", 0.7680}, {"m7i.large", 0.1008},
    {"m7i.xlarge", 0.2016},  {"m7i.2xlarge", 0.4032}, {"m7i.4xlarge", 0.8064},
    {"c5.large", 0.0850},    {"c5.xlarge", 0.1700},   {"c5.2xlarge", 0.3400},
    {"c5.4xlarge", 0.6800},  {"c6i.large", 0.0850},   {"c6i.xlarge", 0.1700},
    {"c6i.2xlarge", 0.3400}, {"c6i.4xlarge", 0.6800}, {"r5.large", 0.1260},
    {"r5.xlarge", 0.2520},   {"r5.2xlarge", 0.5040},  {"r5.4xlarge", 1.0080},
    {"r6i.large", 0.1260},   {"r6i.xlarge", 0.2520},  {"r6i.2xlarge", 0.5040},
    {"r6i.4xlarge", 1.0080}, {"t3.medium", 0.0416},   {"t3.large", 0.0832},
    {"t3.xlarge", 0.1664},   {"t3.2xlarge", 0.3328},  {"m6g.medium", 0.0385},
    {"m6g.large", 0.0770},   {"m6g.xlarge", 0.1540},  {"m6g.2xlarge", 0.3080},
    {"m6g.4xlarge", 0.6160}, {"c6g.medium", 0.0340},  {"c6g.large", 0.0680},
    {"c6g.xlarge", 0.1360},  {"c6g.2xlarge", 0.2720}, {"c6g.4xlarge", 0.5440},
    {"r6g.medium", 0.0504},  {"r6g.large", 0.1008},   {"r6g.xlarge", 0.2016},
    {"r6g.2xlarge", 0.4032}, {"r6g.4xlarge", 0.8064}, {"m7g.medium", 0.0408},
    {"m7g.large", 0.0816},   {"m7g.xlarge", 0.1632},  {"m7g.2xlarge", 0.3264},
    {"m7g.4xlarge", 0.6528},
};

std::string Key(absl::string_view type, absl::string_view zone, CapacityType capacity) {
  return absl::StrCat(type, "|", zone, "|", CapacityTypeKey(capacity));
}

absl::StatusOr<PriceEntry> MakeEntry(absl::string_view type, absl::string_view zone,
                                     absl::string_view capacity, absl::string_view price,
                                     absl::string_view where) {
  PriceEntry e;
  e.instance_type = std::string(absl::StripAsciiWhitespace(type));
  e.zone = std::string(absl::StripAsciiWhitespace(zone));
  if (e.instance_type.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": instance type is required"));
  }
  std::optional<CapacityType> ct = ParseCapacityType(absl::StripAsciiWhitespace(capacity));
  if (!ct.has_value() || *ct == CapacityType::kUnknown) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": capacity type \"", capacity,
                     "\" is not one of on-demand, spot, reserved, fargate"));
  }
  e.capacity_type = *ct;
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(price), &e.usd_per_hour) ||
      !(e.usd_per_hour >= 0) || e.usd_per_hour > 1e6) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": price \"", price, "\" is not a non-negative number"));
  }
  return e;
}

}  // namespace

absl::string_view CapacityTypeName(CapacityType type) {
  switch (type) {
    case CapacityType::kOnDemand:
      return "On-Demand";
    case CapacityType::kSpot:
      return "Spot";
    case CapacityType::kReserved:
      return "Reserved";
    case CapacityType::kFargate:
      return "Fargate";
    case CapacityType::kUnknown:
      break;
  }
  return "-";
}

absl::string_view CapacityTypeKey(CapacityType type) {
  switch (type) {
    case CapacityType::kOnDemand:
      return "on-demand";
    case CapacityType::kSpot:
      return "spot";
    case CapacityType::kReserved:
      return "reserved";
    case CapacityType::kFargate:
      return "fargate";
    case CapacityType::kUnknown:
      break;
  }
  return "";
}

std::optional<CapacityType> ParseCapacityType(absl::string_view text) {
  std::string t = absl::AsciiStrToLower(text);
  absl::StrReplaceAll({{"_", "-"}}, &t);
  if (t == "on-demand" || t == "ondemand") return CapacityType::kOnDemand;
  if (t == "spot") return CapacityType::kSpot;
  if (t == "reserved") return CapacityType::kReserved;
  if (t == "fargate") return CapacityType::kFargate;
  return std::nullopt;
}

PriceTable PriceTable::Builtin() {
  PriceTable table;
  for (const BuiltinPrice& p : kBuiltin) {
    table.Set({.instance_type = p.type,
               .zone = "",
               .capacity_type = CapacityType::kOnDemand,
               .usd_per_hour = p.usd});
  }
  return table;
}

void PriceTable::Set(const PriceEntry& entry) {
  prices_[Key(entry.instance_type, entry.zone, entry.capacity_type)] = entry.usd_per_hour;
}

std::optional<double> PriceTable::Find(absl::string_view instance_type, absl::string_view zone,
                                       CapacityType capacity_type) const {
  if (!zone.empty()) {
    auto it = prices_.find(Key(instance_type, zone, capacity_type));
    if (it != prices_.end()) return it->second;
  }
  auto it = prices_.find(Key(instance_type, "", capacity_type));
  if (it != prices_.end()) return it->second;
  return std::nullopt;
}

std::optional<double> PriceTable::Lookup(absl::string_view instance_type, absl::string_view zone,
                                         CapacityType capacity_type) const {
  if (instance_type.empty()) return std::nullopt;
  if (capacity_type == CapacityType::kUnknown) capacity_type = CapacityType::kOnDemand;
  std::optional<double> price = Find(instance_type, zone, capacity_type);
  if (price.has_value()) return price;
  if (capacity_type == CapacityType::kSpot && spot_discount_.has_value()) {
    std::optional<double> od = Find(instance_type, zone, CapacityType::kOnDemand);
    if (od.has_value()) return *od * (1.0 - *spot_discount_ / 100.0);
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<PriceEntry>> ParsePriceCsv(absl::string_view text) {
  std::vector<PriceEntry> entries;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || absl::StartsWith(line, "#")) continue;
    std::vector<absl::string_view> fields = absl::StrSplit(line, ',');
    const std::string where = absl::StrCat("line ", line_no);
    if (fields.size() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": expected 4 fields instance_type,zone,capacity_type,usd_per_hour, got ",
          fields.size()));
    }
    if (absl::StripAsciiWhitespace(fields[0]) == "instance_type") continue;  // header
    absl::StatusOr<PriceEntry> e = MakeEntry(fields[0], fields[1], fields[2], fields[3], where);
    if (!e.ok()) return e.status();
    entries.push_back(*std::move(e));
  }
  return entries;
}

absl::StatusOr<std::vector<PriceEntry>> ParsePriceYaml(absl::string_view text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("invalid YAML: ", e.what()));
  }
  if (!root.IsMap() || !root["prices"] || !root["prices"].IsSequence()) {
    return absl::InvalidArgumentError("prices: expected a list under the key \"prices\"");
  }
  std::vector<PriceEntry> entries;
  const YAML::Node prices = root["prices"];
  for (size_t i = 0; i < prices.size(); ++i) {
    const YAML::Node item = prices[i];
    const std::string where = absl::StrCat("prices[", i, "]");
    if (!item.IsMap()) return absl::InvalidArgumentError(absl::StrCat(where, ": expected a map"));
    for (auto it = item.begin(); it != item.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      if (key != "instanceType" && key != "zone" && key != "capacityType" && key != "usdPerHour") {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ".", key,
                         ": unknown field (known: instanceType, zone, capacityType, "
                         "usdPerHour)"));
      }
    }
    auto scalar = [&](const char* key) -> std::string {
      const YAML::Node v = item[key];
      return v && v.IsScalar() ? v.Scalar() : std::string();
    };
    if (!item["usdPerHour"]) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".usdPerHour: required"));
    }
    absl::StatusOr<PriceEntry> e = MakeEntry(scalar("instanceType"), scalar("zone"),
                                             scalar("capacityType"), scalar("usdPerHour"), where);
    if (!e.ok()) return e.status();
    entries.push_back(*std::move(e));
  }
  return entries;
}

absl::Status LoadPriceFile(const std::string& path, PriceTable& table) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("price file ", path, ": cannot be read"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  bool yaml = absl::EndsWith(path, ".yaml") || absl::EndsWith(path, ".yml") ||
              absl::EndsWith(path, ".json");
  if (!yaml && !absl::EndsWith(path, ".csv")) {
    yaml = true;
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      line = absl::StripAsciiWhitespace(line);
      if (line.empty() || absl::StartsWith(line, "#")) continue;
      yaml = !absl::StrContains(line, ',');
      break;
    }
  }
  absl::StatusOr<std::vector<PriceEntry>> entries =
      yaml ? ParsePriceYaml(text) : ParsePriceCsv(text);
  if (!entries.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("price file ", path, ": ", entries.status().message()));
  }
  for (const PriceEntry& e : *entries) table.Set(e);
  return absl::OkStatus();
}

}  // namespace trimaran::dashboard
