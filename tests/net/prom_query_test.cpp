// The one reader of Prometheus' query API answers (net/prom_query.hpp), which the fleet view and `solscope
// import --from prometheus-json` judge each in their own words: what it reads, what it marks, what fails.
// Answers are SYNTHETIC, shaped as https://prometheus.io/docs/prometheus/latest/querying/api/ shows them.
#include "net/prom_query.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

namespace solscope::net {
namespace {

TEST(PromQueryAnswer, reads_a_matrix_with_labels_and_special_values) {
  const auto a = parse_prom_query_answer(
      R"({"status":"success","data":{"resultType":"matrix","result":[)"
      R"({"metric":{"__name__":"up","gpu":"0","n":7},"values":[[1700000000.5,"1.5"],[1700000015,"NaN"],)"
      R"([1700000030,"+Inf"],[1700000045,"-2e3"]]}]}})");
  ASSERT_TRUE(a) << a.error().describe();
  EXPECT_EQ(a->status, "success");
  EXPECT_TRUE(a->has_data);
  EXPECT_TRUE(a->has_result);
  EXPECT_EQ(a->result_type, "matrix");
  ASSERT_EQ(a->series.size(), 1u);
  const PromSeries& s = a->series[0];
  EXPECT_TRUE(s.has_metric);
  EXPECT_EQ(s.form, PromSeriesForm::Range);
  EXPECT_EQ(s.labels.size(), 2u);  // the number-valued label is not a label
  EXPECT_EQ(s.labels.at("__name__"), "up");
  EXPECT_EQ(s.sent_points, 4u);
  EXPECT_FALSE(s.bad_point);
  ASSERT_EQ(s.points.size(), 4u);
  EXPECT_EQ(s.points[0].first, 1'700'000'000'500'000'000);
  EXPECT_EQ(s.points[0].second, 1.5);
  EXPECT_TRUE(std::isnan(s.points[1].second));
  EXPECT_EQ(s.points[2].second, INFINITY);
  EXPECT_EQ(s.points[3].second, -2000.0);
}

TEST(PromQueryAnswer, reads_an_instant_vector_and_marks_items_that_are_no_series) {
  const auto a = parse_prom_query_answer(
      R"({"status":"success","data":{"resultType":"vector","result":[)"
      R"({"metric":{},"value":[1700000000,"3"]},{"values":[[1700000000,"1"]]},7,{"metric":{"a":"b"}}]}})");
  ASSERT_TRUE(a) << a.error().describe();
  ASSERT_EQ(a->series.size(), 4u);
  EXPECT_EQ(a->series[0].form, PromSeriesForm::Instant);
  ASSERT_EQ(a->series[0].points.size(), 1u);
  EXPECT_EQ(a->series[0].points[0].second, 3.0);
  EXPECT_FALSE(a->series[1].has_metric);
  EXPECT_EQ(a->series[1].form, PromSeriesForm::Range);
  EXPECT_EQ(a->series[2].form, PromSeriesForm::None);
  EXPECT_FALSE(a->series[2].has_metric);
  EXPECT_EQ(a->series[3].form, PromSeriesForm::None);
  EXPECT_TRUE(a->series[3].has_metric);
}

TEST(PromQueryAnswer, marks_the_first_point_that_does_not_read) {
  for (const char* bad :
       {R"([1700000010,"zero"])", R"([1700000010,5])", R"(["1700000010","5"])", R"([1,"2",3])", R"([-1,"5"])",
        R"([7258118400,"5"])", R"([1700000010,"1e400"])", R"([1700000010,""])"}) {
    const std::string body = std::string(R"({"status":"success","data":{"resultType":"matrix","result":[)") +
                             R"({"metric":{},"values":[[1700000000,"1"],)" + bad +
                             R"(,[1700000020,"2"]]}]}})";
    const auto a = parse_prom_query_answer(body);
    ASSERT_TRUE(a) << bad;
    const PromSeries& s = a->series.at(0);
    ASSERT_TRUE(s.bad_point) << bad;
    EXPECT_EQ(s.bad_point->index, 1u) << bad;
    EXPECT_EQ(s.bad_point->json, bad);
    EXPECT_EQ(s.points.size(), 1u) << bad;  // the points before it
    EXPECT_EQ(s.sent_points, 3u) << bad;
  }
}

TEST(PromQueryAnswer, reports_status_and_error_fields_as_sent) {
  const auto failed =
      parse_prom_query_answer(R"({"status":"error","errorType":"bad_data","error":"1:2: oops"})");
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->status, "error");
  EXPECT_EQ(failed->error_type, "bad_data");
  EXPECT_EQ(failed->error, "1:2: oops");
  EXPECT_FALSE(failed->has_data);
  const auto odd = parse_prom_query_answer(R"({"status":{"x":1},"errorType":[1],"data":{"resultType":7}})");
  ASSERT_TRUE(odd);
  EXPECT_FALSE(odd->status);
  EXPECT_FALSE(odd->error_type);
  EXPECT_TRUE(odd->has_data);
  EXPECT_EQ(odd->result_type, "");
  EXPECT_FALSE(odd->has_result);
  const auto not_object = parse_prom_query_answer("[1, 2]");
  ASSERT_TRUE(not_object);
  EXPECT_FALSE(not_object->status);
}

TEST(PromQueryAnswer, text_that_is_not_json_fails_with_line_and_column) {
  const auto syntax = parse_prom_query_answer("{\n  \"status\": \"success\",\n  \"data\": {,}\n}");
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().code, core::ErrorCode::DataLoss);
  EXPECT_EQ(syntax.error().message.rfind("line 3: column 12: invalid JSON (parse error", 0), 0u)
      << syntax.error().message;
  const auto overflow = parse_prom_query_answer("[1e400]");
  ASSERT_FALSE(overflow);
  EXPECT_EQ(overflow.error().code, core::ErrorCode::DataLoss);
  EXPECT_EQ(overflow.error().message.rfind("invalid JSON: ", 0), 0u) << overflow.error().message;
  EXPECT_FALSE(parse_prom_query_answer("<html>Grafana</html>"));
}

TEST(PromQueryAnswer, deep_nesting_stops_at_the_depth_limit_anywhere_in_the_answer) {
  // Before: every '[' became a node of a JSON tree (20 MB of '[' took 1.5 GB). Now the reader stops at the
  // first level past the limit, however long the rest is.
  const std::string deep(2'000'000, '[');
  for (const std::string& body :
       {deep, R"({"status":"success","warnings":)" + deep,
        R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":)" + deep,
        R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":)" + deep}) {
    const auto a = parse_prom_query_answer(body);
    ASSERT_FALSE(a) << body.substr(0, 80);
    EXPECT_EQ(a.error().code, core::ErrorCode::ResourceExhausted);
    EXPECT_EQ(a.error().message,
              "the answer nests arrays and objects deeper than 32 levels (the limit of solscope's Prometheus "
              "reader)");
  }
  std::string nested = "{\"status\":\"success\",\"x\":";  // 31 levels with the answer itself: reads
  nested += std::string(30, '[') + std::string(30, ']') + "}";
  EXPECT_TRUE(parse_prom_query_answer(nested)) << nested;
}

TEST(PromQueryAnswer, a_million_series_stop_at_the_series_limit) {
  // Before: one million tiny series took 1.47 GB.
  std::string body = R"({"status":"success","data":{"resultType":"vector","result":[)";
  constexpr std::string_view kTiny = R"({"metric":{},"value":[1,"1"]},)";
  body.reserve(body.size() + kTiny.size() * 1'000'000);
  for (int i = 0; i < 1'000'000; ++i) body += kTiny;
  body.back() = ']';
  body += "}}";
  const auto a = parse_prom_query_answer(body);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().code, core::ErrorCode::ResourceExhausted);
  EXPECT_EQ(a.error().message,
            "the answer holds more than 250000 series (the limit of solscope's Prometheus reader)");
}

TEST(PromQueryAnswer, points_and_labels_count_against_their_limits) {
  const std::string body =
      R"({"status":"success","data":{"resultType":"matrix","result":[)"
      R"({"metric":{"a":"1","b":"2"},"values":[[1,"1"],[2,"2"]]},{"metric":{"c":"3"},"values":[[3,"3"]]}]}})";
  EXPECT_TRUE(parse_prom_query_answer(body, {.points = 3, .labels = 3}));
  const auto points = parse_prom_query_answer(body, {.points = 2});
  ASSERT_FALSE(points);
  EXPECT_EQ(points.error().message,
            "the answer holds more than 2 points (the limit of solscope's Prometheus reader)");
  const auto labels = parse_prom_query_answer(body, {.labels = 2});
  ASSERT_FALSE(labels);
  EXPECT_EQ(labels.error().code, core::ErrorCode::ResourceExhausted);
  EXPECT_EQ(labels.error().message,
            "the answer holds more than 2 labels (the limit of solscope's Prometheus reader)");
  EXPECT_FALSE(parse_prom_query_answer(body, {.series = 1}));
}

TEST(PromQueryAnswer, reads_as_a_json_tree_would_members_sent_twice_and_odd_points) {
  const auto a = parse_prom_query_answer(
      R"({"status":"error","status":"success","data":7,"data":{"result":[],"resultType":"matrix","result":[)"
      R"({"values":[[1,"1"]],"metric":{"a":"x","a":"y","b":"z","b":1},"value":[2,"2"]},)"
      R"({"value":[2,"2"],"values":{"not":"an array"}},)"
      R"({"metric":{},"values":[[1,"1"],{"k":[1,{"d":null}],"k":true},[[5]],7]},)"
      R"({"metric":{},"value":"5"}]}})");
  ASSERT_TRUE(a) << a.error().describe();
  EXPECT_EQ(a->status, "success");
  EXPECT_TRUE(a->has_data);
  EXPECT_TRUE(a->has_result);
  EXPECT_EQ(a->result_type, "matrix");
  ASSERT_EQ(a->series.size(), 4u);
  const PromSeries& first = a->series[0];  // "values" wins over "value", whatever the order
  EXPECT_EQ(first.form, PromSeriesForm::Range);
  EXPECT_EQ(first.labels, (std::map<std::string, std::string>{{"a", "y"}}));
  ASSERT_EQ(first.points.size(), 1u);
  EXPECT_EQ(a->series[1].form, PromSeriesForm::Instant);  // "values" that is no array: the "value"
  EXPECT_EQ(a->series[1].points.at(0).first, 2'000'000'000);
  const PromSeries& odd = a->series[2];
  EXPECT_EQ(odd.sent_points, 4u);  // the points after the bad one are counted, not read
  ASSERT_TRUE(odd.bad_point);
  EXPECT_EQ(odd.bad_point->index, 1u);
  EXPECT_EQ(odd.bad_point->json, R"({"k":true})");
  EXPECT_EQ(odd.points.size(), 1u);
  ASSERT_TRUE(a->series[3].bad_point);
  EXPECT_EQ(a->series[3].bad_point->json, R"("5")");
  EXPECT_EQ(a->series[3].form, PromSeriesForm::Instant);
}

TEST(PromQueryAnswer, query_parameters) {
  EXPECT_EQ(url_encode("a b{\"}&=+"), "a%20b%7B%22%7D%26%3D%2B");
  EXPECT_EQ(url_encode("az-_.~09"), "az-_.~09");
  EXPECT_EQ(prom_time(1'700'000'000'123'456'789), "1700000000.123");
  EXPECT_EQ(prom_time(1'700'000'000'000'000'000), "1700000000.000");
}

}  // namespace
}  // namespace solscope::net
