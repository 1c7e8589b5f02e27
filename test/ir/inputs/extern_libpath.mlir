// The cpu backend links extern calls against the device library and the process only: a
// libpath is refused, naming the call.
module attributes {distributed.target = "cpu"} {
  func.func @with_libpath(%x: i32) {
    %r = distributed.extern_call "my_function"(%x) {libname = "mine", libpath = "libmine.so"} : (i32) -> i32
    return
  }
}
