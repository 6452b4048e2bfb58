#include "sim/pod_file_reader.h"

#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/pod_source.h"
#include "sim/trace.h"

namespace trimaran::sim {
namespace {

using ::testing::HasSubstr;

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Every pod of `source`, or its error.
absl::StatusOr<std::vector<TracePod>> ReadAll(PodSource& source) {
  std::vector<TracePod> pods;
  while (true) {
    absl::StatusOr<std::optional<TracePod>> pod = source.Next();
    if (!pod.ok()) return pod.status();
    if (!pod->has_value()) return pods;
    pods.push_back(**std::move(pod));
  }
}

constexpr char kCsv[] =
    "# comment\n"
    "name,creation_time,duration,cpu_milli,memory_mib,usage\n"
    "a,0,60,500,1024,0:100:200;30:400:800\n"
    "\n"
    "b,10,,1000,2048,\n"
    "c,10,5,1,1,\n";

TEST(PodFileReader, StreamsCsvInFileOrderAsTheWholeFileParserReadsIt) {
  const std::string path = WriteFile("stream.csv", kCsv);
  absl::StatusOr<std::unique_ptr<PodFileReader>> reader = PodFileReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  absl::StatusOr<std::vector<TracePod>> streamed = ReadAll(**reader);
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  absl::StatusOr<std::vector<TracePod>> whole = ParsePods(kCsv, path);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_EQ(streamed->size(), 3u);
  ASSERT_EQ(whole->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*streamed)[i].name, (*whole)[i].name);
    EXPECT_EQ((*streamed)[i].line, (*whole)[i].line);
    EXPECT_EQ((*streamed)[i].creation_time, (*whole)[i].creation_time);
    EXPECT_EQ((*streamed)[i].duration, (*whole)[i].duration);
    EXPECT_EQ((*streamed)[i].usage, (*whole)[i].usage);
  }
  EXPECT_EQ((*streamed)[0].name, "a");
  EXPECT_EQ((*streamed)[1].line, 5);
  EXPECT_EQ((*streamed)[2].name, "c");
  EXPECT_TRUE((*reader)->sorted());
}

TEST(PodFileReader, StreamsJsonl) {
  const std::string path =
      WriteFile("stream.jsonl",
                "{\"name\":\"a\",\"creation_time\":1,\"cpu_milli\":5,\"memory_mib\":6,"
                "\"usage\":[{\"t\":0,\"cpu_milli\":1,\"memory_mib\":2}]}\n"
                "\n"
                "{\"name\":\"b\",\"creation_time\":2,\"cpu_milli\":5,\"memory_mib\":6}");
  absl::StatusOr<std::unique_ptr<PodFileReader>> reader = PodFileReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  absl::StatusOr<std::vector<TracePod>> pods = ReadAll(**reader);
  ASSERT_TRUE(pods.ok()) << pods.status();
  ASSERT_EQ(pods->size(), 2u);
  EXPECT_EQ((*pods)[0].usage, (std::vector<UsagePoint>{{0, 1, 2}}));
  EXPECT_EQ((*pods)[1].name, "b");
  EXPECT_EQ((*pods)[1].line, 3);
}

// The streamed errors are the whole-file parser's, to the byte.
TEST(PodFileReader, ErrorsAreTheWholeFileParsersWithFileAndLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bad_cell.csv", "name,creation_time,cpu_milli,memory_mib\na,0,1,1\n\nb,1,x,1\n"},
      {"bad_header.csv", "# c\nname,creation_time,cpu_milli,memory_mib,gpu\n"},
      {"cells.csv", "name,creation_time,cpu_milli,memory_mib\na,0,1\n"},
      {"empty.csv", ""},
      {"comments.csv", "# only\n# comments\n"},
      {"comments_no_newline.csv", "# only"},
      {"bad.jsonl", "{\"name\":\"a\",\"creation_time\":0,\"cpu_milli\":1,\"memory_mib\":1}\n{x\n"},
      {"pods.txt", "name,creation_time,cpu_milli,memory_mib\n"},
  };
  for (const auto& [name, text] : cases) {
    const std::string path = WriteFile(name, text);
    const absl::Status whole = ParsePods(text, path).status();
    ASSERT_FALSE(whole.ok()) << name;
    absl::Status streamed;
    absl::StatusOr<std::unique_ptr<PodFileReader>> reader = PodFileReader::Open(path);
    if (!reader.ok()) {
      streamed = reader.status();
    } else {
      streamed = ReadAll(**reader).status();
    }
    EXPECT_EQ(streamed, whole) << name;
    EXPECT_THAT(std::string(streamed.message()), HasSubstr(path + ":")) << name;
  }
  EXPECT_THAT(ScanPodFile(WriteFile("bad_cell.csv", cases[0].second)).status().message(),
              HasSubstr("bad_cell.csv:4: cpu_milli: not a non-negative integer: \"x\""));
}

TEST(PodFileReader, UnsortedPodsAreAnErrorUnlessAllowed) {
  const std::string path =
      WriteFile("unsorted.csv", "name,creation_time,cpu_milli,memory_mib\na,10,1,1\nb,5,1,1\n");
  absl::StatusOr<std::unique_ptr<PodFileReader>> reader = PodFileReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_THAT(ReadAll(**reader).status().message(),
              HasSubstr("unsorted.csv:3: creation_time: 5 is before the previous pod's 10"));

  reader = PodFileReader::Open(path, {.allow_unsorted = true});
  ASSERT_TRUE(reader.ok()) << reader.status();
  absl::StatusOr<std::vector<TracePod>> pods = ReadAll(**reader);
  ASSERT_TRUE(pods.ok()) << pods.status();
  ASSERT_EQ(pods->size(), 2u);
  EXPECT_EQ((*pods)[0].name, "a");  // file order: sorting is the whole-file parser's
  EXPECT_FALSE((*reader)->sorted());
  EXPECT_EQ((*reader)->first_unsorted_line(), 3);

  absl::StatusOr<PodFileSummary> summary = ScanPodFile(path);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->pods, 2);
  EXPECT_FALSE(summary->sorted);
  EXPECT_EQ(summary->first_unsorted_line, 3);
}

TEST(PodFileReader, ScanChecksUniqueNamesAsTheWholeFileParser) {
  const std::string text = "name,creation_time,cpu_milli,memory_mib\na,0,1,1\nb,1,1,1\na,2,1,1\n";
  const std::string path = WriteFile("dup.csv", text);
  EXPECT_EQ(ScanPodFile(path).status(), ParsePods(text, path).status());
  EXPECT_THAT(ScanPodFile(path).status().message(), HasSubstr("dup.csv:4: name: duplicate pod"));
  absl::StatusOr<PodFileSummary> ok = ScanPodFile(WriteFile("ok.csv", kCsv));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->pods, 3);
  EXPECT_TRUE(ok->sorted);
}

TEST(VectorPodSource, YieldsThePodsAndRejectsAnUnsortedVector) {
  std::vector<TracePod> pods(2);
  pods[0].name = "a";
  pods[0].creation_time = 3;
  pods[1].name = "b";
  pods[1].creation_time = 4;
  VectorPodSource sorted(pods);
  absl::StatusOr<std::vector<TracePod>> out = ReadAll(sorted);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[1].name, "b");
  pods[1].creation_time = 1;
  VectorPodSource unsorted(pods);
  EXPECT_THAT(ReadAll(unsorted).status().message(), HasSubstr("sorted by creation_time"));
}

}  // namespace
}  // namespace trimaran::sim
