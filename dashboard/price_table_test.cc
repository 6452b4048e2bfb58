#include "dashboard/price_table.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::dashboard {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

TEST(PriceTableTest, BuiltinHasTheSpecTableOnDemandOnly) {
  const PriceTable t = PriceTable::Builtin();
  // Spot-checks of §A4, one per family row and the small sizes.
  EXPECT_THAT(t.Lookup("m6i.xlarge", "", CapacityType::kOnDemand), Optional(0.1920));
  EXPECT_THAT(t.Lookup("m7i.4xlarge", "us-east-1a", CapacityType::kOnDemand), Optional(0.8064));
  EXPECT_THAT(t.Lookup("c5.large", "", CapacityType::kOnDemand), Optional(0.0850));
  EXPECT_THAT(t.Lookup("r6g.2xlarge", "", CapacityType::kOnDemand), Optional(0.4032));
  EXPECT_THAT(t.Lookup("t3.medium", "", CapacityType::kOnDemand), Optional(0.0416));
  EXPECT_THAT(t.Lookup("m7g.medium", "", CapacityType::kOnDemand), Optional(0.0408));
  // 12 families × 4 sizes, minus t3.4xlarge, plus t3.medium and 4 arm .medium sizes.
  EXPECT_EQ(t.size(), 12u * 4 - 1 + 1 + 4);
  // Unlabelled capacity is priced as on-demand.
  EXPECT_THAT(t.Lookup("m5.large", "", CapacityType::kUnknown), Optional(0.0960));
  // No built-in spot, reserved or Fargate prices, nor unknown types.
  EXPECT_EQ(t.Lookup("m6i.xlarge", "", CapacityType::kSpot), std::nullopt);
  EXPECT_EQ(t.Lookup("m6i.xlarge", "", CapacityType::kReserved), std::nullopt);
  EXPECT_EQ(t.Lookup("x9.weird", "", CapacityType::kOnDemand), std::nullopt);
  EXPECT_EQ(t.Lookup("", "", CapacityType::kOnDemand), std::nullopt);
}

TEST(PriceTableTest, SpotDiscountAppliesOnlyWithoutASpotPrice) {
  PriceTable t = PriceTable::Builtin();
  t.set_spot_discount_percent(60);
  EXPECT_THAT(t.Lookup("m6i.xlarge", "us-east-1a", CapacityType::kSpot), Optional(0.192 * 0.4));
  t.Set({.instance_type = "m6i.xlarge",
         .zone = "us-east-1a",
         .capacity_type = CapacityType::kSpot,
         .usd_per_hour = 0.05});
  EXPECT_THAT(t.Lookup("m6i.xlarge", "us-east-1a", CapacityType::kSpot), Optional(0.05));
  // Another zone: no zone row, so the discount again.
  EXPECT_THAT(t.Lookup("m6i.xlarge", "us-east-1b", CapacityType::kSpot), Optional(0.192 * 0.4));
  // The discount never invents a price for an unknown type.
  EXPECT_EQ(t.Lookup("x9.weird", "", CapacityType::kSpot), std::nullopt);
}

TEST(PriceTableTest, ZoneRowWinsOverZoneless) {
  PriceTable t;
  t.Set({.instance_type = "m5.large",
         .zone = "",
         .capacity_type = CapacityType::kSpot,
         .usd_per_hour = 0.04});
  t.Set({.instance_type = "m5.large",
         .zone = "us-east-1c",
         .capacity_type = CapacityType::kSpot,
         .usd_per_hour = 0.03});
  EXPECT_THAT(t.Lookup("m5.large", "us-east-1c", CapacityType::kSpot), Optional(0.03));
  EXPECT_THAT(t.Lookup("m5.large", "us-east-1a", CapacityType::kSpot), Optional(0.04));
}

TEST(PriceTableTest, ParseCsv) {
  absl::StatusOr<std::vector<PriceEntry>> e = ParsePriceCsv(
      "# prices\ninstance_type,zone,capacity_type,usd_per_hour\n"
      "m6i.xlarge,us-east-1a,spot,0.071\n\n x9.weird , ,ON_DEMAND, 1.5 \n");
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_EQ(e->size(), 2u);
  EXPECT_EQ((*e)[0].instance_type, "m6i.xlarge");
  EXPECT_EQ((*e)[0].zone, "us-east-1a");
  EXPECT_EQ((*e)[0].capacity_type, CapacityType::kSpot);
  EXPECT_DOUBLE_EQ((*e)[0].usd_per_hour, 0.071);
  EXPECT_EQ((*e)[1].instance_type, "x9.weird");
  EXPECT_EQ((*e)[1].zone, "");
  EXPECT_EQ((*e)[1].capacity_type, CapacityType::kOnDemand);
  EXPECT_DOUBLE_EQ((*e)[1].usd_per_hour, 1.5);
}

TEST(PriceTableTest, CsvErrorsNameTheLine) {
  EXPECT_THAT(ParsePriceCsv("m5.large,,spot\n").status().message(),
              HasSubstr("line 1: expected 4 fields"));
  EXPECT_THAT(ParsePriceCsv("\nm5.large,,cheap,1\n").status().message(),
              HasSubstr("line 2: capacity type \"cheap\""));
  EXPECT_THAT(ParsePriceCsv("m5.large,,spot,-1\n").status().message(),
              HasSubstr("line 1: price \"-1\" is not a non-negative number"));
  EXPECT_THAT(ParsePriceCsv(",,spot,1\n").status().message(),
              HasSubstr("line 1: instance type is required"));
}

TEST(PriceTableTest, ParseYaml) {
  absl::StatusOr<std::vector<PriceEntry>> e = ParsePriceYaml(
      "prices:\n"
      "  - {instanceType: m6i.xlarge, capacityType: spot, zone: us-east-1b, usdPerHour: 0.08}\n"
      "  - instanceType: c7.custom\n    capacityType: reserved\n    usdPerHour: 0.5\n");
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_EQ(e->size(), 2u);
  EXPECT_EQ((*e)[0].zone, "us-east-1b");
  EXPECT_EQ((*e)[0].capacity_type, CapacityType::kSpot);
  EXPECT_DOUBLE_EQ((*e)[0].usd_per_hour, 0.08);
  EXPECT_EQ((*e)[1].capacity_type, CapacityType::kReserved);
  EXPECT_THAT(
      ParsePriceYaml("prices:\n  - {instanceType: a, capacityType: spot}\n").status().message(),
      HasSubstr("prices[0].usdPerHour: required"));
  EXPECT_THAT(ParsePriceYaml("prices:\n  - {instanceType: a, capacityType: spot, usdPerHour: 1, "
                             "price: 2}\n")
                  .status()
                  .message(),
              HasSubstr("prices[0].price: unknown field"));
  EXPECT_THAT(ParsePriceYaml("nope: 1\n").status().message(), HasSubstr("prices: expected"));
}

TEST(PriceTableTest, LoadPriceFileOverridesTheBuiltinTable) {
  const std::string path = ::testing::TempDir() + "/prices.yaml";
  {
    std::ofstream out(path);
    out << "prices:\n  - {instanceType: m6i.xlarge, capacityType: on-demand, usdPerHour: 0.2}\n";
  }
  PriceTable t = PriceTable::Builtin();
  ASSERT_TRUE(LoadPriceFile(path, t).ok());
  EXPECT_THAT(t.Lookup("m6i.xlarge", "", CapacityType::kOnDemand), Optional(0.2));
  EXPECT_THAT(t.Lookup("m6i.large", "", CapacityType::kOnDemand), Optional(0.096));
  std::remove(path.c_str());
  absl::Status missing = LoadPriceFile(path, t);
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr(path));

  const std::string csv = ::testing::TempDir() + "/prices.txt";  // sniffed as CSV
  {
    std::ofstream out(csv);
    out << "# spot\nm6i.xlarge,,spot,0.07\nbad\n";
  }
  absl::Status bad = LoadPriceFile(csv, t);
  EXPECT_THAT(bad.message(), HasSubstr("line 3"));
  std::remove(csv.c_str());
}

TEST(PriceTableTest, CapacityTypeNames) {
  EXPECT_EQ(ParseCapacityType("ON_DEMAND"), CapacityType::kOnDemand);
  EXPECT_EQ(ParseCapacityType("on-demand"), CapacityType::kOnDemand);
  EXPECT_EQ(ParseCapacityType("SPOT"), CapacityType::kSpot);
  EXPECT_EQ(ParseCapacityType("CAPACITY_BLOCK"), std::nullopt);
  EXPECT_EQ(CapacityTypeName(CapacityType::kOnDemand), "On-Demand");
  EXPECT_EQ(CapacityTypeName(CapacityType::kUnknown), "-");
  EXPECT_EQ(CapacityTypeKey(CapacityType::kFargate), "fargate");
}

}  // namespace
}  // namespace trimaran::dashboard
