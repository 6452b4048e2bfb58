#include "kube/auth/reviews.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/json_parse.h"
#include "common/json_write.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace trimaran::kube {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

absl::StatusOr<rapidjson::Document> Parse(const std::string& body, absl::string_view what) {
  rapidjson::Document doc;
  if (absl::Status s = ParseJsonDocument(body, doc, kSmallJsonLimits, what); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the reply is not a JSON object (", s.message(), ")"));
  }
  if (!doc.IsObject()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": the reply is not a JSON object"));
  }
  return doc;
}

const rapidjson::Value* Member(const rapidjson::Value& v, const char* name) {
  if (!v.IsObject()) return nullptr;
  auto it = v.FindMember(name);
  return it == v.MemberEnd() ? nullptr : &it->value;
}

std::string StringOf(const rapidjson::Value* v) {
  return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength())
                                       : std::string();
}

bool BoolOf(const rapidjson::Value* v) { return v != nullptr && v->IsBool() && v->GetBool(); }

}  // namespace

absl::StatusOr<TokenReviewResult> ReviewToken(Client& client, absl::string_view token) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  JsonStringField(w, "apiVersion", "authentication.k8s.io/v1");
  JsonStringField(w, "kind", "TokenReview");
  JsonKey(w, "spec");
  w.StartObject();
  JsonStringField(w, "token", token);
  w.EndObject();
  w.EndObject();
  absl::StatusOr<std::string> reply =
      client.Raw("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                 absl::string_view(buf.GetString(), buf.GetSize()), "application/json");
  if (!reply.ok()) return reply.status();
  absl::StatusOr<rapidjson::Document> doc = Parse(*reply, "TokenReview");
  if (!doc.ok()) return doc.status();
  TokenReviewResult out;
  const rapidjson::Value* status = Member(*doc, "status");
  if (status == nullptr) return out;
  out.authenticated = BoolOf(Member(*status, "authenticated"));
  out.error = StringOf(Member(*status, "error"));
  if (const rapidjson::Value* user = Member(*status, "user")) {
    out.user.username = StringOf(Member(*user, "username"));
    out.user.uid = StringOf(Member(*user, "uid"));
    if (const rapidjson::Value* groups = Member(*user, "groups"); groups && groups->IsArray()) {
      for (const rapidjson::Value& g : groups->GetArray()) {
        if (g.IsString()) out.user.groups.emplace_back(g.GetString(), g.GetStringLength());
      }
    }
  }
  if (out.authenticated && out.user.username.empty()) {
    return absl::InvalidArgumentError("TokenReview: authenticated without a username");
  }
  return out;
}

absl::StatusOr<AccessReviewResult> ReviewNonResourceAccess(Client& client, const UserInfo& user,
                                                           absl::string_view verb,
                                                           absl::string_view path) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  JsonStringField(w, "apiVersion", "authorization.k8s.io/v1");
  JsonStringField(w, "kind", "SubjectAccessReview");
  JsonKey(w, "spec");
  w.StartObject();
  JsonStringField(w, "user", user.username);
  if (!user.uid.empty()) {
    JsonStringField(w, "uid", user.uid);
  }
  JsonStringArrayField(w, "groups", user.groups);
  JsonKey(w, "nonResourceAttributes");
  w.StartObject();
  JsonStringField(w, "path", path);
  JsonStringField(w, "verb", verb);
  w.EndObject();
  w.EndObject();
  w.EndObject();
  absl::StatusOr<std::string> reply =
      client.Raw("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                 absl::string_view(buf.GetString(), buf.GetSize()), "application/json");
  if (!reply.ok()) return reply.status();
  absl::StatusOr<rapidjson::Document> doc = Parse(*reply, "SubjectAccessReview");
  if (!doc.ok()) return doc.status();
  AccessReviewResult out;
  if (const rapidjson::Value* status = Member(*doc, "status")) {
    out.allowed = BoolOf(Member(*status, "allowed"));
    out.denied = BoolOf(Member(*status, "denied"));
    out.reason = StringOf(Member(*status, "reason"));
    if (out.reason.empty()) out.reason = StringOf(Member(*status, "evaluationError"));
  }
  if (out.denied) out.allowed = false;
  return out;
}

}  // namespace trimaran::kube
