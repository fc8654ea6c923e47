// A SYNTHETIC kubelet for tests: the PodResources v1 gRPC service (`v1.PodResourcesLister`, method `List`) on
// a Unix socket in a temporary folder, answering a fixed List response, a fixed error status, or nothing
// until the client gives up. Used by the PodResources client's tests and the end-to-end workload attribution
// test.
#pragma once

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "podresources/v1/api.grpc.pb.h"

namespace solscope::testing {

/// A folder under /tmp, removed with everything in it (short, so that a socket path fits sun_path).
class TempDir {
 public:
  TempDir() {
    std::string pattern = "/tmp/solscope-pr-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp: " << std::strerror(errno);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  auto operator=(const TempDir&) -> TempDir& = delete;
  [[nodiscard]] auto socket() const -> std::string { return (path_ / "kubelet.sock").string(); }
  [[nodiscard]] auto path() const -> const std::filesystem::path& { return path_; }

 private:
  std::filesystem::path path_;
};

/// The kubelet's side of List: a fixed answer, a fixed error status, or no answer until the client gives up.
class FakeLister final : public v1::PodResourcesLister::Service {
 public:
  explicit FakeLister(v1::ListPodResourcesResponse answer) : answer_(std::move(answer)) {}
  explicit FakeLister(grpc::Status status) : status_(std::move(status)) {}
  static auto hanging() -> std::unique_ptr<FakeLister> {
    auto lister = std::make_unique<FakeLister>(v1::ListPodResourcesResponse{});
    lister->hang_ = true;
    return lister;
  }

  auto List(grpc::ServerContext* context, const v1::ListPodResourcesRequest* /*request*/,
            v1::ListPodResourcesResponse* reply) -> grpc::Status override {
    calls_.fetch_add(1);
    if (hang_) {
      while (!context->IsCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return {grpc::StatusCode::CANCELLED, "the client gave up"};
    }
    if (status_) return *status_;
    *reply = answer_;
    return grpc::Status::OK;
  }
  [[nodiscard]] auto calls() const -> int { return calls_.load(); }

 private:
  v1::ListPodResourcesResponse answer_;
  std::optional<grpc::Status> status_;
  bool hang_ = false;
  std::atomic<int> calls_{0};
};

/// A gRPC server of `lister` on <temporary folder>/kubelet.sock, as the kubelet serves it.
class FakeKubelet {
 public:
  explicit FakeKubelet(FakeLister& lister) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix://" + dir_.socket(), grpc::InsecureServerCredentials());
    builder.RegisterService(&lister);
    server_ = builder.BuildAndStart();
    EXPECT_NE(server_, nullptr) << "the fake kubelet did not start on " << dir_.socket();
  }
  ~FakeKubelet() {
    if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }
  FakeKubelet(const FakeKubelet&) = delete;
  auto operator=(const FakeKubelet&) -> FakeKubelet& = delete;
  [[nodiscard]] auto socket() const -> std::string { return dir_.socket(); }
  [[nodiscard]] auto dir() const -> const TempDir& { return dir_; }

 private:
  TempDir dir_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace solscope::testing
