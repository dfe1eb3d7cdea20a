export class Hello {
  public sayHello() {
    return 'hello, world!';
  }
}