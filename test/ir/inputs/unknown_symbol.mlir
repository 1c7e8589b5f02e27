// An extern_call of a function that no library provides: compilation stops before the JIT,
// naming the symbol and the call's location.
module attributes {distributed.target = "cpu"} {
  func.func @calls_nothing(%n: i32) {
    %r = distributed.extern_call "tdist_no_such_function"(%n) : (i32) -> i32
    return
  }
}
