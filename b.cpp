#include "a.cpp"
constexpr EnumNames<D> kBad({"a", "b"}, "unknown");
int main(){}
